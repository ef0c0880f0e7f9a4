// `keep-searching`: never answers; every turn one Hermes call with a new query ("<question>", then
// "<question> 2", "<question> 3", …). For max-turn and context-overflow tests.
import type { Policy } from "./policy.ts";
import { hermesCall, withThink } from "./turn-text.ts";

export const keepSearchingPolicy: Policy = {
  name: "keep-searching",
  summary: "never answers: one <tool_call> to --tool with a new query every turn",
  respond(ctx) {
    const { question, turn } = ctx.conversation;
    const query = turn === 1 ? question : `${question} ${turn}`;
    return {
      text: withThink(ctx, "I need more information.", hermesCall(ctx.options.tool, { query })),
      ends: true,
    };
  },
};
