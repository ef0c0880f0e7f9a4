// `malformed`: turn 1 writes three broken calls (invalid JSON, no name, an unclosed tag, in that order);
// after the error observations a valid call; then an answer.
import type { Policy } from "./policy.ts";
import { answerTag, chooseSpan, hermesCall, withThink } from "./turn-text.ts";

export const malformedPolicy: Policy = {
  name: "malformed",
  summary:
    "turn 1: invalid JSON, missing name and unclosed <tool_call>; turn 2: a valid call; then an answer",
  respond(ctx) {
    const { question, turn, observations } = ctx.conversation;
    const { tool } = ctx.options;
    const query = JSON.stringify(question);
    if (turn === 1) {
      const broken = [
        `<tool_call>\n{"name": ${JSON.stringify(tool)}, "arguments": {"query": ${query}}\n</tool_call>`,
        `<tool_call>\n{"arguments": {"query": ${query}}}\n</tool_call>`,
        `<tool_call>\n{"name": ${JSON.stringify(tool)}, "arguments": {"query": ${query}}}`,
      ];
      return { text: withThink(ctx, "Let me call the tool.", broken.join("\n")), ends: true };
    }
    if (turn === 2) {
      return {
        text: withThink(ctx, "My calls were malformed; once more.", hermesCall(tool, { query: question })),
        ends: true,
      };
    }
    const span = chooseSpan(ctx, observations) ?? "unknown";
    return { text: withThink(ctx, "Now I can answer.", answerTag(span)), ends: true };
  },
};
