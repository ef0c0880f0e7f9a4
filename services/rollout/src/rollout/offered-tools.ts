// Which tools a task offers, turn by turn, and how a change is shown to the model.
//
// The prompt renders the tools offered on the first turn (the task's `tools`, else every configured
// tool) through the chat template, as always. A later user turn with its own `tools` changes the set
// from then on. The prompt is never re-rendered (token-level RL needs every request's prompt to be the
// previous one + the response + appended tokens), so a change is shown as a system message appended
// right before that user message, holding the tool list exactly as the template renders it in the
// system prompt. Calls to a tool not offered in the current turn never reach the gateway: they are
// answered with a TOOL_NOT_OFFERED observation.
import type { ChatTool, Task } from "@rlfactory/contracts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";

export const TOOL_NOT_OFFERED = "TOOL_NOT_OFFERED";

/** The tools of each user turn: [0] the prompt's, [k] those after the task's k-th later turn. */
export interface ToolPlan {
  /** True when the task names its tools (task-level or per turn): calls are checked against them. */
  restricted: boolean;
  /** Offered tools per user turn (index 0: the prompt); a later entry equals the previous one unless it changed. */
  perUserTurn: ChatTool[][];
  /** Per user turn: the set changed at that turn (never at 0). */
  changed: boolean[];
}

function pick(all: readonly ChatTool[], names: readonly string[], field: string): ChatTool[] {
  const byName = new Map(all.map((t) => [t.function.name, t]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    throw new Error(
      `${field} names ${missing.join(", ")}, not among the configured tools (${[...byName.keys()].join(", ") || "none"})`,
    );
  }
  return names.map((n) => byName.get(n)!);
}

/** The task's tool plan over the engine's tools; throws naming the field (`tools`, `turns[1].tools`). */
export function toolPlan(all: readonly ChatTool[], task: Pick<Task, "tools" | "turns">): ToolPlan {
  const first = task.tools === undefined ? [...all] : pick(all, task.tools, "tools");
  const perUserTurn: ChatTool[][] = [first];
  const changed = [false];
  let restricted = task.tools !== undefined;
  (task.turns ?? []).forEach((turn, i) => {
    const previous = perUserTurn.at(-1)!;
    if (turn.tools === undefined) {
      perUserTurn.push(previous);
      changed.push(false);
      return;
    }
    restricted = true;
    const next = pick(all, turn.tools, `turns[${i}].tools`);
    perUserTurn.push(next);
    const same =
      next.length === previous.length && next.every((t, k) => t.function.name === previous[k]!.function.name);
    changed.push(!same);
  });
  return { restricted, perUserTurn, changed };
}

/**
 * The system message that announces a new tool set: the tool list as the chat template renders it
 * (the text tools add to a system message), or a JSON listing when the template renders no tools.
 */
export function toolListMessage(tokenizer: ModelTokenizer, tools: readonly ChatTool[]): string {
  if (tools.length === 0) return "No tools are available from now on; do not call any.";
  const mark = "TOOL-LIST-BASE";
  const bare = tokenizer.renderChat([{ role: "system", content: mark }], {});
  const withTools = tokenizer.renderChat([{ role: "system", content: mark }], { tools });
  let p = 0;
  while (p < bare.length && bare[p] === withTools[p]) p++;
  let s = 0;
  while (s < bare.length - p && bare[bare.length - 1 - s] === withTools[withTools.length - 1 - s]) s++;
  const added = withTools.slice(p, withTools.length - s).trim();
  if (added !== "" && !added.includes(mark)) return `The tools available from now on changed.\n\n${added}`;
  return `The tools available from now on changed:\n${tools.map((t) => JSON.stringify(t)).join("\n")}`;
}
