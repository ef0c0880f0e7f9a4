// `converse` (Hermes, multi-turn conversations): answers each user message. A user message holding
// `call: {JSON arguments}` gets one call of --tool with those arguments (`call NAME: {…}` calls NAME); the tool results get the
// plain-text reply `Result: …`; any other user message gets `You said: <message>`, and one holding
// `answer: X` gets `<answer>X</answer>`. It never calls a tool twice for one user message, so every
// user turn ends with a reply that has no tool call (the rollout loop then appends the next user turn).

import type { Policy } from "./policy.ts";
import { hermesCall, withThink } from "./turn-text.ts";

const CALL = /call(?:\s+([A-Za-z0-9_.-]+))?:\s*(\{.*\})\s*$/m;
const ANSWER = /answer:\s*(.+?)\s*$/m;

export const conversePolicy: Policy = {
  name: "converse",
  summary: "multi-turn chat: `call: {args}` → one --tool call, its result → `Result: …`, else `You said: …`",
  respond(ctx) {
    const { messages, observations } = ctx.conversation;
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    const content = lastUser?.content.trim() ?? "";
    if (content.includes("<tool_response>")) {
      return {
        text: withThink(ctx, "The tool answered.", `Result: ${observations.join("; ").trim()}`),
        ends: true,
      };
    }
    const call = CALL.exec(content);
    if (call !== null) {
      let args: Record<string, string | number>;
      try {
        args = JSON.parse(call[2]!) as Record<string, string | number>;
      } catch {
        args = { input: call[2]! };
      }
      const tool = call[1] ?? ctx.options.tool;
      return { text: withThink(ctx, "I call the tool.", hermesCall(tool, args)), ends: true };
    }
    const answer = ANSWER.exec(content);
    if (answer !== null)
      return { text: withThink(ctx, "I answer.", `<answer>${answer[1]}</answer>`), ends: true };
    return { text: withThink(ctx, "I reply.", `You said: ${content}`), ends: true };
  },
};
