// `search-then-answer` (Hermes): search the question, answer with the top passage's title; after a tool
// error (no passages in the result) search once more with a shorter query, then answer "unknown".
import type { Policy, PolicyContext } from "./policy.ts";
import { answerTag, chooseSpan, hermesCall, shorterQuery, withThink } from "./turn-text.ts";

/** The decision both search policies share, rendered by the caller's format. */
export type SearchAction =
  | { kind: "search"; query: string; plan: string }
  | { kind: "answer"; span: string; plan: string };

export function searchThenAnswer(ctx: PolicyContext): SearchAction {
  const { question, turn, observations } = ctx.conversation;
  if (turn === 1) return { kind: "search", query: question, plan: "I should search for the question." };
  const span = chooseSpan(ctx, observations);
  if (span !== undefined) return { kind: "answer", span, plan: "The passages answer it." };
  if (turn === 2) {
    return {
      kind: "search",
      query: shorterQuery(question),
      plan: "The search failed; I retry with fewer words.",
    };
  }
  return { kind: "answer", span: "unknown", plan: "The search failed again; I cannot find it." };
}

export const searchThenAnswerPolicy: Policy = {
  name: "search-then-answer",
  summary: "Hermes <tool_call> to --tool with the question, then <answer>top passage title</answer>",
  respond(ctx) {
    const action = searchThenAnswer(ctx);
    const body =
      action.kind === "search"
        ? hermesCall(ctx.options.tool, { query: action.query })
        : answerTag(action.span);
    return { text: withThink(ctx, action.plan, body), ends: true };
  },
};
