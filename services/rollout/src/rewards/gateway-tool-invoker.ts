// A ToolInvoker over the gateway's gRPC client. A failed RPC (the gateway itself unreachable,
// unauthenticated, past the RPC deadline) becomes a call outcome with a gateway-style code, so the
// reward sees one kind of failure whichever layer failed. Aborting `signal` resolves the call as
// CANCELLED at once; the gateway still finishes (or times out) the call on its side.
import { type ServiceError, status } from "@grpc/grpc-js";
import { type GatewayClient, resultText } from "@rlfactory/gateway/client";
import type { ToolResult__Output as WireToolResult } from "@rlfactory/proto/types/ToolResult";
import type { ToolCallOutcome, ToolInvoker } from "./types.ts";

export function gatewayToolInvoker(client: GatewayClient, opts: { trajectoryId?: string } = {}): ToolInvoker {
  return {
    async call(name, args, { deadlineMs, signal } = {}) {
      if (signal?.aborted) return failure("CANCELLED", `${name}: cancelled before the call`);
      const call = client
        .callTool({
          name,
          arguments_json: JSON.stringify(args),
          deadline_ms: deadlineMs ?? 0,
          trajectory_id: opts.trajectoryId ?? "",
        })
        .then(toOutcome, (err: ServiceError) => rpcFailure(name, err));
      if (!signal) return call;
      let onAbort = () => {};
      const aborted = new Promise<ToolCallOutcome>((resolve) => {
        onAbort = () => resolve(failure("CANCELLED", `${name}: cancelled`));
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        return await Promise.race([call, aborted]);
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

function toOutcome(r: WireToolResult): ToolCallOutcome {
  const errorCode = String(r.error_code);
  if (errorCode !== "OK") return failure(errorCode, r.error_message);
  let structured: unknown = null;
  if (r.structured_content_json !== "") {
    try {
      structured = JSON.parse(r.structured_content_json);
    } catch {
      structured = null;
    }
  }
  return { isError: r.is_error, errorCode, text: resultText(r), structured };
}

function rpcFailure(name: string, err: ServiceError): ToolCallOutcome {
  const code =
    err.code === status.DEADLINE_EXCEEDED
      ? "TIMEOUT"
      : err.code === status.CANCELLED
        ? "CANCELLED"
        : err.code === status.UNAUTHENTICATED || err.code === status.PERMISSION_DENIED
          ? "UNAUTHENTICATED"
          : "UNAVAILABLE";
  return failure(code, `${name}: gateway RPC failed: ${err.details || err.message}`);
}

function failure(errorCode: string, text: string): ToolCallOutcome {
  return { isError: false, errorCode, text, structured: null };
}
