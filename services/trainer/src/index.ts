// @rlfactory/trainer — the token-level rollout engine's building blocks (so far: tokenizer and chat
// template with observation deltas, tool-call formats, the Trajectory record). The rollout loop,
// inference clients, rewards and entry points come next (issue 4).
export * from "./parsers/registry.ts";
export * from "./parsers/render-tool-result.ts";
export type * from "./parsers/types.ts";
export * from "./tokenizer/chat-message.ts";
export * from "./tokenizer/model-tokenizer.ts";
export * from "./tokenizer/observation-delta.ts";
export * from "./tokenizer/truncate-to-tokens.ts";
export * from "./trajectory.ts";
