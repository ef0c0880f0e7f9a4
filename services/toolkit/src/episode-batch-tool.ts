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
import { defineTool, type ToolDefinition } from "./define-tool.ts";
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

/** One call of the batch once started: its result to come, and how to tell its handler to stop. */
interface Started {
  def: ToolDefinition;
  result: Promise<CallToolResult>;
  controller: AbortController;
  deadlineMs: number | undefined;
}

/**
 * The batch tool over `stateful` (the environment's stateful tools, which take the handle argument).
 * With `pipeline` (the episode's state lives in a process that runs its operations in the order sent),
 * every call is sent at once and the answers awaited in order; otherwise each call starts once the one
 * before it has answered. Either way a call's deadline runs from the moment the call before it was
 * answered (or gave up), as if the calls came one by one.
 */
export function episodeBatchTool(
  stateful: readonly ToolDefinition[],
  handle: z.ZodString,
  pipeline: boolean,
): ToolDefinition {
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
      const start = (call: z.output<typeof BatchCall>): Started | BatchEntry => {
        const def = byName.get(call.name);
        if (!def)
          return {
            error: {
              code: BATCH_UNKNOWN_TOOL,
              message: `no stateful tool named ${JSON.stringify(call.name)}`,
            },
          };
        // Each call's own signal: aborted when the batch's caller goes, or when the call's deadline passes.
        // (The caller's abort is forwarded by a listener, removed once the call is over: AbortSignal.any
        // costs a weak reference and a registry entry per signal, 4 % of the server's busy time here.)
        const controller = new AbortController();
        const forward = () => controller.abort(ctx.signal.reason);
        if (ctx.signal.aborted) forward();
        else ctx.signal.addEventListener("abort", forward, { once: true });
        const result = runToolCall(
          def,
          { ...call.arguments, [EPISODE_HANDLE_ARG]: episode },
          { ...ctx, signal: controller.signal },
          log,
        ).finally(() => ctx.signal.removeEventListener("abort", forward));
        return { def, result, controller, deadlineMs: call.deadline_ms };
      };
      const started = pipeline ? args.calls.map(start) : [];
      const results: BatchEntry[] = [];
      for (const [i, call] of args.calls.entries()) {
        // The caller went away: the calls it no longer waits for do not run.
        if (!pipeline && ctx.signal.aborted) break;
        const one = pipeline ? started[i]! : start(call);
        results.push("def" in one ? await settle(one) : one);
      }
      // The results travel as structured content only: the text block is a summary, not a second copy.
      return rawResult([{ type: "text", text: `${results.length} results` }], { results });
    },
  });
}

/** A started call's entry: its result, or DEADLINE_EXCEEDED once its deadline (counted from now) passes. */
async function settle(one: Started): Promise<BatchEntry> {
  if (one.deadlineMs === undefined) return { result: await one.result };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, one.deadlineMs, TIMED_OUT);
  });
  try {
    const outcome = await Promise.race([one.result, expired]);
    if (outcome !== TIMED_OUT) return { result: outcome };
    one.controller.abort(new DOMException(`no result within ${one.deadlineMs} ms`, "TimeoutError"));
    return {
      error: {
        code: BATCH_DEADLINE_EXCEEDED,
        message: `${one.def.name}: no result within ${one.deadlineMs} ms`,
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
