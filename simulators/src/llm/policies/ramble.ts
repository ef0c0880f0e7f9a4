// `ramble`: writes plain prose and never ends its turn, so every request hits max_tokens
// (finish_reason "length", no EOS). The text is longer than the cap by construction.
import type { Policy } from "./policy.ts";
import { withThink } from "./turn-text.ts";

const WORDS = [
  "the",
  "model",
  "keeps",
  "talking",
  "about",
  "many",
  "things",
  "and",
  "never",
  "reaches",
  "a",
  "conclusion",
  "because",
  "every",
  "thought",
  "leads",
  "to",
  "another",
  "one",
  "while",
  "tokens",
  "pile",
  "up",
  "until",
  "budget",
  "runs",
  "out",
  "so",
  "it",
  "goes",
  "on",
];

export const ramblePolicy: Policy = {
  name: "ramble",
  summary: "writes prose without ever stopping (finish_reason length at max_tokens)",
  respond(ctx) {
    // Each word is at least one token: max_tokens + 32 words always reach the cap.
    const words = Array.from(
      { length: ctx.maxTokens + 32 },
      () => WORDS[Math.floor(ctx.random() * WORDS.length)]!,
    );
    const text = `Let me think about "${ctx.conversation.question}". ${words.join(" ")}`;
    return { text: withThink(ctx, "This needs a long explanation.", text), ends: false };
  },
};
