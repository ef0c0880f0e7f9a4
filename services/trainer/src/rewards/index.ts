// Rewards: composable, weighted components scoring a finished trajectory (README.md here).
export * from "./argument-template.ts";
export * from "./errors.ts";
export * from "./format.ts";
export * from "./gateway-tool-invoker.ts";
export * from "./http-judge.ts";
export * from "./judge.ts";
export * from "./process-rewards.ts";
export * from "./qa-match.ts";
export * from "./reward-config.ts";
export * from "./tool-penalty.ts";
export * from "./tool-verified.ts";
export * from "./types.ts";
