// How the rollout reaches the gateway's tools: ONE adapter over `GatewayClient`, used by the rollout
// loop (all calls of a turn in one CallTools batch, a message on the client's CallToolsStream; the
// gateway runs them in parallel and answers in order) and by the rewards that call verify tools (one
// call). Two kinds of failure are kept apart:
//
//   - a call's outcome: the tool's own error (`isError`: MCP `isError`, with errorCode "OK" — the model
//     sees it, a reward scores it) or the gateway's code for that call (TIMEOUT, UNAVAILABLE,
//     CIRCUIT_OPEN, UNKNOWN_TOOL, ... with its one-line message as `text`);
//   - the RPC itself failing (the gateway unreachable, unauthenticated, past the RPC deadline, cancelled):
//     `callTools` throws `GatewayCallError` with a code of the same vocabulary. The loop ends the
//     trajectory on it (failed; aborted when CANCELLED) instead of showing it to the model. `call` turns
//     it into that call's outcome, so a reward sees one kind of failure whichever layer failed.

import { type ServiceError, status } from "@grpc/grpc-js";
import { type GatewayClient, resultText } from "@rlfactory/clients";
import type { ToolCallUsage } from "@rlfactory/contracts";
import { raceAbort } from "./inference/cancellation.ts";

export interface ToolCallInput {
  /** Gateway tool name (`server__tool`). */
  name: string;
  arguments: Record<string, unknown>;
  /** The episode the call runs in (a tool of the task's environment server); omitted: stateless. */
  episodeId?: string;
}

/** One tool call's outcome (the gateway's two error channels kept apart). */
export interface ToolCallOutcome {
  /** The tool itself reported a failure (MCP `isError`): a normal result, `errorCode` is "OK". */
  isError: boolean;
  /** "OK", or why the call itself failed ("TIMEOUT", "UNAVAILABLE", "UNKNOWN_TOOL", ...). */
  errorCode: string;
  /** The result's text; the gateway's one-line error message when `errorCode` is not "OK". */
  text: string;
  /** The tool's structured result (MCP `structuredContent`), or null. */
  structured: unknown | null;
  /** What the call spent on a model (a model tool; never for a cache hit). */
  usage?: ToolCallUsage;
  /** The result's image blocks, in content order, bytes as the tool sent them (absent: none). */
  images?: ToolImage[];
}

/** An image a tool answered with (MCP image content). */
export interface ToolImage {
  mimeType: string;
  data: Buffer;
}

/** A call's outcome as the loop records it: with its tool name and the latency the gateway measured. */
export interface ToolOutcome extends ToolCallOutcome {
  name: string;
  latencyMs: number;
}

/** The loop's way to tools: one turn's calls, outcomes in call order. */
export interface ToolCaller {
  /** Throws `GatewayCallError` when the RPC itself fails (never for one call's failure: see errorCode). */
  callTools(
    calls: readonly ToolCallInput[],
    options: { trajectoryId: string; deadlineMs: number; signal?: AbortSignal },
  ): Promise<ToolOutcome[]>;
}

/** The rewards' way to tools: one call by its gateway name. Never throws for call failures: see `errorCode`. */
export interface ToolInvoker {
  call(
    name: string,
    args: Record<string, unknown>,
    opts: { deadlineMs?: number; signal?: AbortSignal; episodeId?: string },
  ): Promise<ToolCallOutcome>;
}

/** The CallTools RPC itself failed; `code` is a gateway call code (UNAVAILABLE, TIMEOUT, CANCELLED, ...). */
export class GatewayCallError extends Error {
  override name = "GatewayCallError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface GatewayTools extends ToolCaller, ToolInvoker {}

/** The one adapter: the loop's ToolCaller and the rewards' ToolInvoker over one gateway client. */
export function gatewayTools(client: GatewayClient): GatewayTools {
  async function callTools(
    calls: readonly ToolCallInput[],
    { trajectoryId, deadlineMs, signal }: { trajectoryId: string; deadlineMs: number; signal?: AbortSignal },
  ): Promise<ToolOutcome[]> {
    if (calls.length === 0) return [];
    if (signal?.aborted) throw cancelled();
    let results: Awaited<ReturnType<GatewayClient["callTools"]>>;
    try {
      results = await raceAbort(
        client.callTools(
          {
            calls: calls.map((c, i) => ({
              name: c.name,
              arguments_json: JSON.stringify(c.arguments),
              call_id: `${trajectoryId}:${i}`,
              ...(c.episodeId === undefined ? {} : { episode_id: c.episodeId }),
            })),
            deadline_ms: deadlineMs,
            trajectory_id: trajectoryId,
          },
          signal === undefined ? {} : { signal },
        ),
        signal,
        cancelled,
      );
    } catch (e) {
      if (e instanceof GatewayCallError) throw e;
      const err = e as ServiceError;
      throw new GatewayCallError(rpcCode(err), `gateway CallTools failed: ${err.details || err.message}`, {
        cause: e,
      });
    }
    if (results.length !== calls.length) {
      throw new GatewayCallError(
        "INTERNAL",
        `gateway CallTools failed: ${results.length} results for ${calls.length} calls`,
      );
    }
    return results.map((r, i) => {
      const errorCode = String(r.error_code);
      const ok = errorCode === "OK";
      const images = ok ? imagesOf(r.content) : [];
      return {
        name: calls[i]?.name ?? r.name,
        isError: ok && r.is_error,
        errorCode,
        text: ok ? resultText(r) : r.error_message,
        structured: ok ? structuredOf(r.structured_content_json) : null,
        latencyMs: Number(r.latency_ms),
        ...(r.usage ? { usage: usageOf(r.usage) } : {}),
        ...(images.length > 0 ? { images } : {}),
      };
    });
  }

  return {
    callTools,
    async call(name, args, { deadlineMs, signal, episodeId } = {}) {
      try {
        const [outcome] = await callTools(
          [{ name, arguments: args, ...(episodeId === undefined ? {} : { episodeId }) }],
          {
            trajectoryId: "",
            deadlineMs: deadlineMs ?? 0,
            ...(signal === undefined ? {} : { signal }),
          },
        );
        // callTools checked that there is one result per call
        const { isError, errorCode, text, structured, images } = outcome!;
        return { isError, errorCode, text, structured, ...(images ? { images } : {}) };
      } catch (e) {
        if (!(e instanceof GatewayCallError)) throw e;
        return { isError: false, errorCode: e.code, text: e.message, structured: null };
      }
    },
  };
}

function cancelled(): GatewayCallError {
  return new GatewayCallError("CANCELLED", "gateway CallTools cancelled by the caller");
}

/** The gateway call code for a failed RPC (grpc status → the gateway's own vocabulary). */
function rpcCode(err: ServiceError): string {
  switch (err.code) {
    case status.DEADLINE_EXCEEDED:
      return "TIMEOUT";
    case status.CANCELLED:
      return "CANCELLED";
    case status.UNAUTHENTICATED:
    case status.PERMISSION_DENIED:
      return "UNAUTHENTICATED";
    case status.INVALID_ARGUMENT:
      return "INVALID_ARGUMENTS";
    case status.RESOURCE_EXHAUSTED: // a batch or message over the gateway's limit
      return "ARGUMENTS_TOO_LARGE";
    case status.INTERNAL:
      return "INTERNAL";
    default: // UNAVAILABLE (nothing listens, connection lost), UNKNOWN, ...
      return "UNAVAILABLE";
  }
}

function usageOf(
  u: NonNullable<Awaited<ReturnType<GatewayClient["callTools"]>>[number]["usage"]>,
): ToolCallUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    model: u.model,
    ...(u.cost_usd == null ? {} : { cost_usd: u.cost_usd }),
  };
}

function imagesOf(content: Awaited<ReturnType<GatewayClient["callTools"]>>[number]["content"]): ToolImage[] {
  return content.flatMap((c) =>
    c.image ? [{ mimeType: c.image.mime_type, data: Buffer.from(c.image.data) }] : [],
  );
}

function structuredOf(json: string): unknown {
  if (json === "") return null;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
