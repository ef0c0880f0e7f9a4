// `search-r1`: the search-then-answer decisions written in Search-R1's tags (`<search>q</search>`,
// `<answer>…</answer>`); observations come back inside `<information>…</information>`.
import type { Policy } from "./policy.ts";
import { searchThenAnswer } from "./search-then-answer.ts";
import { answerTag, searchTag, withThink } from "./turn-text.ts";

export const searchR1Policy: Policy = {
  name: "search-r1",
  summary: "Search-R1 tags: <search>question</search>, then <answer>top passage title</answer>",
  respond(ctx) {
    const action = searchThenAnswer(ctx);
    const body = action.kind === "search" ? searchTag(action.query) : answerTag(action.span);
    return { text: withThink(ctx, action.plan, body), ends: true };
  },
};
