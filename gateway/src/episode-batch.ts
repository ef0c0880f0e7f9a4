// The episode-batch message: several calls of one CallTools request on the same episode, sent to an
// environment server that lists `episode_batch` as ONE upstream tools/call (docs/environments.md).
//
// The gateway does everything it does for a single call before the batch leaves (argument size, JSON,
// depth, schema, the episode's handle) and after its answer comes back (the episode checks, the output
// cap), per call; what the batch changes is only the trip to the server. Each call's deadline travels
// with it (`deadline_ms`) and the server answers a call that passed it as DEADLINE_EXCEEDED, which is
// the call's TIMEOUT; the gateway bounds the whole request by the sum of its calls' deadlines (the calls
// run one after another), so a server that keeps none of them still cannot hold the batch longer.
// A call that never reached the server (refused here) is answered without it, as one by one.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { BATCH_DEADLINE_EXCEEDED, EPISODE_HANDLE_ARG } from "@rlfactory/proto/environment-contract";
import { z } from "zod";
import { CallerAbortError, GatewayError, shortMessage } from "./errors.ts";

/** One call as the batch carries it: the tool's own name and arguments (the handle is the batch's). */
export interface BatchCall {
  name: string;
  arguments: Record<string, unknown>;
  deadline_ms: number;
}

/** The arguments of `episode_batch`. */
export function batchArguments(handle: string, calls: readonly BatchCall[]): Record<string, unknown> {
  return { [EPISODE_HANDLE_ARG]: handle, calls };
}

// The server's answer is checked once, at this boundary: an entry per call, each a result with a
// content list or an error. The content blocks themselves are checked where every result's are
// (output.ts), as for a single call.
const ResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
const EntrySchema = z.union([
  z.object({ result: ResultSchema }),
  z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
]);
const AnswerSchema = z.object({ results: z.array(EntrySchema) });

/** Per call, in order: its result, or its typed failure. */
export type BatchOutcome = { result: CallToolResult } | { error: GatewayError };

/**
 * The batch's answer as one outcome per call: `calls[i]` gets entry `i`. A malformed answer, or one
 * with another number of entries, fails every call (UPSTREAM_ERROR).
 */
export function batchOutcomes(
  structured: unknown,
  calls: readonly { name: string; deadlineMs: number; configuredMs: number }[],
  context: string,
): BatchOutcome[] {
  const parsed = AnswerSchema.safeParse(structured);
  if (!parsed.success || parsed.data.results.length !== calls.length) {
    const why = parsed.success
      ? `${parsed.data.results.length} results for ${calls.length} calls`
      : "no results list in the answer";
    const error = new GatewayError("UPSTREAM_ERROR", `${context}: ${why}`);
    return calls.map(() => ({ error }));
  }
  return parsed.data.results.map((entry, i) => {
    const call = calls[i]!;
    if ("result" in entry) return { result: entry.result as CallToolResult };
    if (entry.error.code === BATCH_DEADLINE_EXCEEDED) return { error: deadlineError(call) };
    return {
      error: new GatewayError("UPSTREAM_ERROR", `${call.name}: ${shortMessage(entry.error.message)}`),
    };
  });
}

/**
 * A call's TIMEOUT, as the one-by-one path words and classes it: the caller's (not counted against the
 * server) when its deadline was shorter than the server's configured one.
 */
export function deadlineError(call: {
  name: string;
  deadlineMs: number;
  configuredMs: number;
}): GatewayError {
  const message = `${call.name}: no result within the ${call.deadlineMs} ms deadline`;
  return call.deadlineMs < call.configuredMs
    ? new CallerAbortError("TIMEOUT", message)
    : new GatewayError("TIMEOUT", message);
}
