// `parallel-calls`: --calls K Hermes calls per turn for --turns N turns, then an answer. Every call has
// its own query, "<question> <i>" with i counting calls across turns (1, 2, … K·N), so none repeats.
import type { Policy } from "./policy.ts";
import { answerTag, chooseSpan, hermesCall, withThink } from "./turn-text.ts";

export const parallelCallsPolicy: Policy = {
  name: "parallel-calls",
  summary: "--calls K parallel <tool_call>s to --tool per turn for --turns N turns, then an answer",
  respond(ctx) {
    const { question, turn, observations } = ctx.conversation;
    const { calls, turns, tool } = ctx.options;
    if (turn <= turns) {
      const first = (turn - 1) * calls + 1;
      const blocks = Array.from({ length: calls }, (_, j) =>
        hermesCall(tool, { query: `${question} ${first + j}` }),
      );
      return { text: withThink(ctx, `I will run ${calls} searches at once.`, blocks.join("\n")), ends: true };
    }
    const span = chooseSpan(ctx, observations) ?? "unknown";
    return { text: withThink(ctx, "I have searched enough.", answerTag(span)), ends: true };
  },
};
