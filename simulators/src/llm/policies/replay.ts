// `replay --tasks FILE` (Hermes, multi-turn): answers each user turn of a known task with that turn's
// ground-truth calls, all in one message of `<tool_call>` blocks (model-visible names, as the task
// writes them); once their results are back, a plain-text reply ends the turn (`<answer>Done.</answer>`
// on the last turn), so the rollout loop appends the next user message. A turn without ground-truth
// calls gets the reply at once. The task is recognised by the conversation's user messages: the prompt's,
// then each later turn's `content`, in order. No matching task (or two that disagree) is an error.
import type { ChatTurn } from "../conversation.ts";
import type { Policy, PolicyContext } from "./policy.ts";
import type { ReplayCall, ReplayTask } from "./replay-tasks.ts";
import { hermesCall, withThink } from "./turn-text.ts";

const TOOL_RESPONSE = "<tool_response>";

export const replayPolicy: Policy = {
  name: "replay",
  summary: "--tasks FILE: each user turn gets its ground-truth calls, then `Done.` (answer on the last turn)",
  respond(ctx) {
    const tasks = ctx.options.tasks;
    if (tasks === undefined || tasks.length === 0) throw new Error("the replay policy needs --tasks FILE");
    const { messages } = ctx.conversation;
    const isUserTurn = (m: ChatTurn) => m.role === "user" && !m.content.includes(TOOL_RESPONSE);
    const said = messages.filter(isUserTurn).map((m) => m.content.trim());
    const found = tasks.flatMap((task) => {
      const turn = turnOf(task, said);
      return turn === undefined ? [] : [{ task, turn }];
    });
    if (found.length === 0) {
      throw new Error(
        `replay: no task has this conversation's user messages (first: ${JSON.stringify(said[0] ?? "")})`,
      );
    }
    const { task, turn } = found[0]!;
    const calls = callsOf(task, turn);
    const other = found.find((f) => JSON.stringify(callsOf(f.task, f.turn)) !== JSON.stringify(calls));
    if (other !== undefined) {
      throw new Error(
        `replay: tasks ${task.id} and ${other.task.id} match this conversation but differ in turn ${turn}`,
      );
    }
    const lastUser = messages.findLastIndex(isUserTurn);
    const resultsBack = messages
      .slice(lastUser + 1)
      .some((m) => m.role === "user" && m.content.includes(TOOL_RESPONSE));
    if (calls.length > 0 && !resultsBack) {
      const blocks = calls.map((c) => hermesCall(c.name, c.arguments)).join("\n");
      return {
        text: withThink(ctx, `Turn ${turn + 1} of ${task.id}: ${calls.length} calls.`, blocks),
        ends: true,
      };
    }
    return { text: endOfTurn(ctx, task, turn), ends: true };
  },
};

/**
 * The 0-based user turn the conversation is on when it is `task`'s: its user messages so far are the
 * task's (prompt first, then turn contents), in order; undefined when they are not.
 */
function turnOf(task: ReplayTask, said: readonly string[]): number | undefined {
  const promptUsers = task.prompt.filter((m) => m.role === "user").map((m) => m.content.trim());
  const script = [...promptUsers, ...task.turns.map((t) => t.content.trim())];
  if (said.length < promptUsers.length || said.length > script.length) return undefined;
  for (let i = 0; i < said.length; i++) if (said[i] !== script[i]) return undefined;
  return said.length - promptUsers.length;
}

function callsOf(task: ReplayTask, turn: number): ReplayCall[] {
  return turn === 0 ? task.ground_truth : (task.turns[turn - 1]?.ground_truth ?? []);
}

function endOfTurn(ctx: PolicyContext, task: ReplayTask, turn: number): string {
  const last = turn === task.turns.length;
  return withThink(ctx, `Turn ${turn + 1} of ${task.id} is done.`, last ? "<answer>Done.</answer>" : "Done.");
}
