// `solve --tasks FILE` (Hermes): solves an FTRL-style task (the task file of `rlf env build`) the way a
// perfect tool user would. Model turn K (1-based) makes the calls of the task's K-th ground-truth turn
// (`extra_info.actions[K-1]`: hop K of every branch, all in one message of `<tool_call>` blocks, under
// the names the model sees); after the last of them, it answers `<answer>GROUND TRUTH</answer>`. A task
// without calls is answered at once. The task is recognised by the conversation's first user message
// (the prompt's). No matching task is an error.
import type { ChatTurn } from "../conversation.ts";
import type { Policy } from "./policy.ts";
import { answerTag, hermesCall, withThink } from "./turn-text.ts";

const TOOL_RESPONSE = "<tool_response>";

export const solvePolicy: Policy = {
  name: "solve",
  summary:
    "--tasks FILE: an FTRL task's ground-truth calls, hop by hop, then <answer>the final answer</answer>",
  respond(ctx) {
    const tasks = ctx.options.solveTasks;
    if (tasks === undefined || tasks.length === 0) throw new Error("the solve policy needs --tasks FILE");
    const { messages } = ctx.conversation;
    const isUserTurn = (m: ChatTurn) => m.role === "user" && !m.content.includes(TOOL_RESPONSE);
    const first = messages.find(isUserTurn)?.content.trim() ?? "";
    const task = tasks.find(
      (t) =>
        t.prompt
          .filter((m) => m.role === "user")
          .at(-1)
          ?.content.trim() === first,
    );
    if (task === undefined) {
      throw new Error(`solve: no task has this conversation's user message (${JSON.stringify(first)})`);
    }
    const lastUser = messages.findLastIndex(isUserTurn);
    const done = messages.slice(lastUser + 1).filter((m) => m.role === "assistant" && m.closed).length;
    const turns = task.extra_info.actions;
    const calls = turns[done];
    if (calls !== undefined && calls.length > 0) {
      const blocks = calls.map((c) => hermesCall(c.name, c.arguments)).join("\n");
      return {
        text: withThink(
          ctx,
          `Hop ${done + 1} of ${turns.length} of ${task.id}: ${calls.length} calls.`,
          blocks,
        ),
        ends: true,
      };
    }
    return {
      text: withThink(ctx, `Every sub-question of ${task.id} is answered.`, answerTag(task.ground_truth)),
      ends: true,
    };
  },
};
