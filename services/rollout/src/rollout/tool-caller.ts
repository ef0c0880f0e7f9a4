// How the rollout loop reaches tools: one turn's calls go to the gateway in ONE CallTools RPC (the
// gateway runs them in parallel and answers in order). A tool's own failure (timeout, tool down, bad
// arguments) is an outcome the model sees; the gateway itself being unreachable is an infrastructure
// failure (GatewayRpcError) that fails the trajectory instead of being fed to the model.
import { type GatewayClient, resultText } from "@rlfactory/gateway/client";
import { raceAbort } from "../inference/cancellation.ts";

export interface ToolCallInput {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolOutcome {
  name: string;
  text: string;
  /** MCP `isError` or a gateway error code other than OK. */
  isError: boolean;
  /** Gateway error code (TIMEOUT, UNAVAILABLE, UNKNOWN_TOOL, ...), or null when the call succeeded (even with isError). */
  errorCode: string | null;
  /** The gateway's one-line error message when errorCode is set. */
  errorMessage: string;
  structured: unknown;
  latencyMs: number;
}

export interface ToolCaller {
  callTools(
    calls: readonly ToolCallInput[],
    options: { trajectoryId: string; deadlineMs: number; signal?: AbortSignal },
  ): Promise<ToolOutcome[]>;
}

export class GatewayRpcError extends Error {
  override name = "GatewayRpcError";
}

export class ToolCallsCancelled extends Error {
  override name = "ToolCallsCancelled";
}

export function gatewayToolCaller(client: GatewayClient): ToolCaller {
  return {
    async callTools(calls, { trajectoryId, deadlineMs, signal }) {
      if (calls.length === 0) return [];
      let results: Awaited<ReturnType<GatewayClient["callTools"]>>;
      try {
        results = await raceAbort(
          client.callTools({
            calls: calls.map((c, i) => ({
              name: c.name,
              arguments_json: JSON.stringify(c.arguments),
              call_id: `${trajectoryId}:${i}`,
            })),
            deadline_ms: deadlineMs,
            trajectory_id: trajectoryId,
          }),
          signal,
          () => new ToolCallsCancelled("cancelled"),
        );
      } catch (e) {
        if (e instanceof ToolCallsCancelled) throw e;
        throw new GatewayRpcError(`gateway CallTools failed: ${(e as Error).message}`, { cause: e });
      }
      if (results.length !== calls.length) {
        throw new GatewayRpcError(`gateway returned ${results.length} results for ${calls.length} calls`);
      }
      return results.map((r, i) => {
        const code = r.error_code === "OK" ? null : r.error_code;
        let structured: unknown = null;
        if (r.structured_content_json) {
          try {
            structured = JSON.parse(r.structured_content_json);
          } catch {
            structured = null;
          }
        }
        return {
          name: calls[i]?.name ?? r.name,
          text: resultText(r),
          isError: r.is_error || code !== null,
          errorCode: code,
          errorMessage: r.error_message,
          structured,
          latencyMs: Number(r.latency_ms),
        };
      });
    },
  };
}
