// @rlfactory/trainer — the token-level rollout engine: inference clients, tokenizer and chat template
// with observation deltas, tool-call formats, the rollout loop and engine, rewards, GRPO advantages,
// tasks, trajectories (JSONL/Parquet), reports, the rollout service and the simulated inference fixture.
export * from "./grpo.ts";
export * from "./inference/index.ts";
export * from "./output/index.ts";
export * from "./parsers/registry.ts";
export * from "./parsers/render-tool-result.ts";
export type * from "./parsers/types.ts";
export * from "./report/index.ts";
export * from "./rewards/index.ts";
export * from "./rollout/engine.ts";
export * from "./rollout/rollout-config.ts";
export type * from "./rollout/rollout-engine.ts";
export * from "./rollout/rollout-loop.ts";
export * from "./rollout/tool-caller.ts";
export * from "./seeded-random.ts";
export * from "./serve/index.ts";
export * from "./simulated-llm/index.ts";
export * from "./task.ts";
export * from "./tasks/index.ts";
export * from "./tokenizer/chat-message.ts";
export * from "./tokenizer/model-tokenizer.ts";
export * from "./tokenizer/observation-delta.ts";
export * from "./tokenizer/truncate-to-tokens.ts";
export * from "./train/index.ts";
export * from "./trajectory.ts";
