// `episode_batch`: several calls of an environment's stateful tools on one episode in ONE request
// (docs/environments.md). The gateway sends a CallTools batch on one episode this way instead of one
// tools/call per call: one message each way instead of one per call.
//
// Each call runs exactly as its own tools/call would (the tool's input schema, its handler, the same
// result or tool error), one after another in request order, and answers one entry: `{result}` (the
// CallToolResult) or `{error: {code, message}}` when it had no result within its `deadline_ms` or names
// no stateful tool. A call that times out is left running on the episode (its handler got the abort);
// the next call waits for it, as it would behind a one-by-one call the gateway gave up on.
import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  BATCH_DEADLINE_EXCEEDED,
  BATCH_UNKNOWN_TOOL,
  EPISODE_BATCH_TOOL,
  EPISODE_HANDLE_ARG,
} from "@rlfactory/proto/environment-contract";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolDefinition } from "./define-tool.ts";
import { logger } from "./logger.ts";
import { rawResult } from "./raw-result.ts";
import { runToolCall } from "./run-tool-call.ts";

/** The most calls one batch may carry (the gateway's own CallTools limit is lower by default). */
export const MAX_BATCH_CALLS = 1_024;

export type BatchEntry =
  | { result: CallToolResult }
  | { error: { code: typeof BATCH_DEADLINE_EXCEEDED | typeof BATCH_UNKNOWN_TOOL; message: string } };

const BatchCall = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).default({}),
  deadline_ms: z.number().int().min(1).optional(),
});

const TIMED_OUT = Symbol("timed out");

/** The batch tool over `stateful` (the environment's stateful tools, which take the handle argument). */
export function episodeBatchTool(stateful: readonly ToolDefinition[], handle: z.ZodString): ToolDefinition {
  const byName = new Map(stateful.map((t) => [t.name, t]));
  const log = logger.child({ tool: EPISODE_BATCH_TOOL });
  return defineTool({
    name: EPISODE_BATCH_TOOL,
    description:
      "Runs calls of this environment's stateful tools on one episode, in order; answers {results: [{result} | {error}, ...]}",
    input: z.object({
      [EPISODE_HANDLE_ARG]: handle,
      calls: z.array(BatchCall).min(1).max(MAX_BATCH_CALLS),
    }),
    handler: async (args, ctx) => {
      const episode = args[EPISODE_HANDLE_ARG];
      const results: BatchEntry[] = [];
      for (const call of args.calls) {
        // The caller went away: the calls it no longer waits for do not run.
        if (ctx.signal.aborted) break;
        const def = byName.get(call.name);
        if (!def) {
          results.push({
            error: {
              code: BATCH_UNKNOWN_TOOL,
              message: `no stateful tool named ${JSON.stringify(call.name)}`,
            },
          });
          continue;
        }
        const callArgs = { ...call.arguments, [EPISODE_HANDLE_ARG]: episode };
        const result =
          call.deadline_ms === undefined
            ? await runToolCall(def, callArgs, ctx, log)
            : await withinDeadline(def, callArgs, ctx, call.deadline_ms, log);
        results.push(
          result === TIMED_OUT
            ? {
                error: {
                  code: BATCH_DEADLINE_EXCEEDED,
                  message: `${def.name}: no result within ${call.deadline_ms} ms`,
                },
              }
            : { result },
        );
      }
      // The results travel as structured content only: the text block is a summary, not a second copy.
      return rawResult([{ type: "text", text: `${results.length} results` }], { results });
    },
  });
}

/** One call that gives up after `ms` (its handler's signal aborted): its result, or TIMED_OUT. */
async function withinDeadline(
  def: ToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
  ms: number,
  log: typeof logger,
): Promise<CallToolResult | typeof TIMED_OUT> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`no result within ${ms} ms`, "TimeoutError"));
      resolve(TIMED_OUT);
    }, ms);
  });
  try {
    return await Promise.race([runToolCall(def, args, { ...ctx, signal: controller.signal }, log), expired]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
