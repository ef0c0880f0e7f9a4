// One CallTools batch, the same whether it came as a unary CallTools RPC or as a message on a
// CallToolsStream: batch limits, per-call spans, episode sequencing, results in request order.
import { status } from "@grpc/grpc-js";
import { type Context, trace } from "@opentelemetry/api";
import type { CallToolsRequest__Output } from "@rlfactory/proto/types/CallToolsRequest";
import type { ToolCall__Output } from "@rlfactory/proto/types/ToolCall";
import type { ToolResult } from "@rlfactory/proto/types/ToolResult";
import { truncate } from "./errors.ts";
import type { CallOutcome, CallRequest, Invoker } from "./invoker.ts";
import { rpcError } from "./rpc-error.ts";

const tracer = trace.getTracer("rlfactory-gateway");

/** What bounds a batch's calls: the caller going away, and the time left on its RPC's deadline. */
export interface BatchBounds {
  signal: AbortSignal;
  /** Milliseconds left on the RPC's deadline; undefined without one. */
  remainingMs: number | undefined;
}

/**
 * Runs a batch; its results in request order. An empty batch or one over `maxBatchSize` throws an
 * RpcError (INVALID_ARGUMENT, RESOURCE_EXHAUSTED); each call's own failure is in its result.
 */
export async function runCallToolsBatch(
  deps: { invoker: Invoker; maxBatchSize: number },
  req: CallToolsRequest__Output,
  ctx: Context,
  bounds: BatchBounds,
): Promise<ToolResult[]> {
  if (req.calls.length === 0) throw rpcError(status.INVALID_ARGUMENT, "CallTools needs at least one call");
  if (req.calls.length > deps.maxBatchSize) {
    throw rpcError(
      status.RESOURCE_EXHAUSTED,
      `batch of ${req.calls.length} calls; the limit is ${deps.maxBatchSize}`,
    );
  }
  // All calls start now and run concurrently, except that calls on one episode run one after
  // another in request order (stateful tools do not commute): the invoker's sequence, which goes
  // to an environment server that lists episode_batch as one request. Results keep request order.
  const reqs = req.calls.map((c) =>
    toCallRequest(
      {
        ...c,
        deadline_ms: c.deadline_ms || req.deadline_ms,
        trajectory_id: c.trajectory_id || req.trajectory_id,
      },
      bounds,
    ),
  );
  const results: ToolResult[] = new Array(reqs.length);
  const byEpisode = new Map<string, number[]>();
  const runs: Promise<void>[] = [];
  for (const [i, one] of reqs.entries()) {
    if (!one.episodeId) {
      runs.push(
        tracer.startActiveSpan(`call ${truncate(one.name)}`, {}, ctx, async (span) => {
          try {
            results[i] = toWireResult(await deps.invoker.call(one, trace.setSpan(ctx, span), span));
          } finally {
            span.end();
          }
        }),
      );
      continue;
    }
    const indices = byEpisode.get(one.episodeId);
    if (indices) indices.push(i);
    else byEpisode.set(one.episodeId, [i]);
  }
  for (const indices of byEpisode.values()) {
    const spans = indices.map((i) => tracer.startSpan(`call ${truncate(reqs[i]!.name)}`, {}, ctx));
    runs.push(
      deps.invoker
        .callSequence(
          indices.map((i) => reqs[i]!),
          ctx,
          spans,
        )
        .then((outcomes) => {
          for (const [k, i] of indices.entries()) results[i] = toWireResult(outcomes[k]!);
        })
        .finally(() => {
          for (const span of spans) span.end();
        }),
    );
  }
  await Promise.all(runs);
  return results;
}

/** Builds the invoker's request; the RPC's own deadline and cancellation bound the call. */
export function toCallRequest(c: ToolCall__Output, { signal, remainingMs }: BatchBounds): CallRequest {
  return {
    name: c.name,
    argumentsJson: c.arguments_json,
    deadlineMs: c.deadline_ms,
    trajectoryId: c.trajectory_id,
    bypassCache: c.cache === "CACHE_BYPASS",
    callId: c.call_id,
    episodeId: c.episode_id,
    signal,
    ...(remainingMs !== undefined ? { rpcRemainingMs: remainingMs } : {}),
  };
}

export function toWireResult(o: CallOutcome): ToolResult {
  return {
    name: o.name,
    call_id: o.callId,
    content: o.output?.content ?? [],
    structured_content_json: o.output?.structuredContentJson ?? "",
    is_error: o.output?.isError ?? false,
    error_code: o.error?.code ?? "OK",
    error_message: o.error?.message ?? "",
    latency_ms: o.latencyMs,
    cache_hit: o.cacheHit,
    attempts: o.attempts,
    truncated: o.output?.truncated ?? false,
    ...(o.output?.usage ? { usage: o.output.usage } : {}),
  };
}
