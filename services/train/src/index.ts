// Training over the Tinker API (SkyRL's Tinker-compatible server, hosted Tinker): the pinned wire
// schema, the HTTP client with futures, a TokenSampler over Tinker sampling for the rollout engine,
// trajectories → datums, the config and the GRPO training loop with checkpoints (README.md here).
export * from "./checkpoint.ts";
export * from "./datum.ts";
export * from "./errors.ts";
export * from "./run-outputs.ts";
export * from "./step-metrics.ts";
export * from "./tinker-client.ts";
export * from "./tinker-sampler.ts";
export * from "./tinker-schema.ts";
export * from "./train-config.ts";
export * from "./train-loop.ts";
