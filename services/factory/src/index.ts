// The environment factory (FTRL): seed questions into validated tool-use environments — scenario
// decomposition, tool documents, function integration, complexity scaling, localized deployment,
// validation in the sandbox — written as an environment bundle and a task file (`rlf env build`).
export {
  type BuildConfig,
  BuildConfigError,
  type BuildConfigInput,
  buildConfigSchema,
  loadBuildConfig,
  parseBuildConfig,
  SCALING_STRATEGIES,
  STRUCTURES,
} from "./build-config.ts";
export {
  type BuildOutput,
  type BuildSummary,
  formatBuildSummary,
  type ToolReport,
  type ValidationReport,
} from "./build-output.ts";
export { type BuildProgress, runBuild, STAGES, type Stage } from "./build-pipeline.ts";
export { EndpointError } from "./chat-client.ts";
export { bundleTaskToRolloutTask } from "./rollout-tasks.ts";
export { STAGE_PROMPTS, type StageName } from "./stage-prompts.ts";
export { FAILURE_REASONS, type FailureReason, TOOL_CHECK_SCRIPT, ToolValidator } from "./tool-validator.ts";
