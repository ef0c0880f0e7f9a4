// @rlfactory/rollout — the token-level rollout engine and the rollout service: inference clients,
// tokenizer and chat template with observation deltas, tool-call formats, the rollout loop and engine,
// rewards, GRPO advantages, tasks, trajectories (JSONL/Parquet), reports, and the service in front of
// the engine (gRPC + HTTP). The export list is explicit: what is not here is internal.

// trajectories and tasks: the records are @rlfactory/contracts', re-exported under the names this
// package always had; new code imports them from @rlfactory/contracts
export {
  type ChatMessage,
  chatMessageSchema,
  chatToolSchema,
  goldAnswers,
  policyVersionFromText,
  type RewardError,
  type Task,
  type TaskTurn,
  type TaskUserSimulator,
  type ToolCallRecord,
  TRAJECTORY_SCHEMA_VERSION,
  type Trajectory,
  TrajectoryAlignmentError,
  TrajectoryBuilder,
  type TrajectoryStatus,
  type Turn,
  taskSchema,
  trajectorySchema,
  trajectoryStatusSchema,
} from "@rlfactory/contracts";
// agent rollouts: the user's agent program per trajectory, through the capture endpoint (issue 27)
export {
  AGENT_ENVIRONMENT_VARIABLES,
  type AgentEnvironment,
  type AgentRunnerOptions,
  boundMcpUrl,
  createAgentRunner,
} from "./agent/agent-runner.ts";
// rewards and advantages
// agent capture: an OpenAI-compatible endpoint per trajectory in front of the token-in client (issue 27)
export {
  type CaptureServer,
  type CaptureServerOptions,
  startCaptureServer,
} from "./capture/capture-server.ts";
export type { CaptureRequestRecord, PrefixVerdict } from "./capture/capture-session.ts";
// the gateway's tools (the loop's and the rewards' one adapter)
export {
  GatewayCallError,
  type GatewayTools,
  gatewayTools,
  type ToolCaller,
  type ToolCallInput,
  type ToolCallOutcome,
  type ToolImage,
  type ToolInvoker,
  type ToolOutcome,
} from "./gateway-tools.ts";
export { type AdvantageMode, type GroupStats, groupAdvantages } from "./grpo.ts";
// inference
export { describeNetworkError, shorten } from "./inference/http-transport.ts";
export {
  createSampler,
  type InferenceConfig,
  type InferenceConfigInput,
  inferenceConfigSchema,
} from "./inference/sampler-config.ts";
export { checkTokenLogprobs } from "./inference/token-logprobs.ts";
export {
  type FinishReason,
  type GenerateRequest,
  type GenerateResult,
  InferenceError,
  type SamplingParams,
  samplingParamsSchema,
  type TextSampler,
  type TokenSampler,
} from "./inference/types.ts";
export { directoryImageStore, type ImageStore } from "./output/image-store.ts";
export { appendTrajectoriesJsonl, readTrajectoriesJsonl } from "./output/jsonl.ts";
// output and reports
export { readTrajectoriesParquet, writeTrajectoriesParquet } from "./output/parquet.ts";
export { TOOL_CALL_FORMAT_NAMES, type ToolCallFormatName, toolCallFormat } from "./parsers/registry.ts";
export { SEARCH_R1_INVALID_ACTION } from "./parsers/search-r1.ts";
export type { ObservationInput, ParsedTurn, ToolCallFormat } from "./parsers/types.ts";
export { runCurves, succeeded } from "./report/run-curves.ts";
export { summarizeRollout } from "./report/summary.ts";
export { formatSummary } from "./report/summary-text.ts";
export { GrpcJudge } from "./rewards/grpc-judge.ts";
export { createJudge } from "./rewards/judge.ts";
export { REWARD_COMPONENT_TYPES } from "./rewards/reward-components.ts";
export {
  createRewardFn,
  parseRewardConfig,
  type RewardConfig,
  type RewardConfigInput,
  type RewardFn,
} from "./rewards/reward-config.ts";
export type { Judge, RewardComponent, RewardInput } from "./rewards/types.ts";
// the rollout loop and engine
export {
  createRolloutEngine,
  type EngineParts,
  InvalidTaskError,
  tokenizerOfConfig,
} from "./rollout/create-rollout-engine.ts";
export {
  boundedSnapshot,
  type EnvironmentRecord,
  type EpisodeApi,
  EpisodeError,
  gatewayEpisodes,
  groupEpisodes,
  type StoredSnapshot,
} from "./rollout/episodes.ts";
export { TOOL_NOT_OFFERED, toolListMessage } from "./rollout/offered-tools.ts";
export {
  loadRolloutConfig,
  parseRolloutConfig,
  type RolloutConfig,
  RolloutConfigError,
  type RolloutConfigInput,
  type UserSimulatorConfig,
} from "./rollout/rollout-config.ts";
export type {
  InferenceTarget,
  RolloutEngine,
  RolloutOptions,
  TrajectoryGroup,
  TrajectoryGroupStats,
} from "./rollout/rollout-engine.ts";
export { renderPromptIds, type UserTurnRecord } from "./rollout/rollout-loop.ts";
export { applyStateDiff, type StateDiff, stateDiff, stateDigest } from "./rollout/state-diff.ts";
export type { TrajectoryRunner, TrajectoryRunnerFactory } from "./rollout/trajectory-runner.ts";
export {
  createUserSimulator,
  type UserSimulator,
  UserSimulatorError,
  type UserViewMessage,
  userSimulatorSystemPrompt,
} from "./rollout/user-simulator.ts";
// the rollout service
export { isBadRequest } from "./serve/errors.ts";
export { loadRolloutProto, ROLLOUT_SERVICE } from "./serve/proto.ts";
export { guardOptionsFromConfig } from "./serve/request-guard.ts";
export { parseRolloutRequest } from "./serve/rollout-request.ts";
export {
  defaultServiceLogger,
  type RolloutServiceHandle,
  type RolloutServiceOptions,
  startRolloutService,
} from "./serve/rollout-service.ts";
export type { CurvePoint, LiveRun, LiveRunListing, LiveRunState, RunCurves } from "./serve/run-api-types.ts";
export { RunTracker } from "./serve/run-tracker.ts";
export { waitForGateway } from "./serve/wait-for-gateway.ts";
export {
  BFCL_CLASS_FUNC_DOC_FILES,
  BFCL_HOLDOUT_TURN_MESSAGE,
  type BfclCall,
  type BfclConvertOptions,
  type BfclTask,
  type BfclTaskTurn,
  convertBfclTasks,
} from "./tasks/bfcl/bfcl-tasks.ts";
export { type PythonCall, PythonCallError, parsePythonCall } from "./tasks/bfcl/python-call.ts";
export { DatasetError } from "./tasks/dataset-rows.ts";
export { loadTasks } from "./tasks/load-tasks.ts";
export { SAMPLE_HOTPOTQA_DATASET, SAMPLE_HOTPOTQA_TASKS } from "./tasks/sample-data.ts";
// tokenizer and tool-call formats
export {
  configuredTokenizer,
  loadModelTokenizer,
  type ModelTokenizer,
  qwen3Tokenizer,
} from "./tokenizer/model-tokenizer.ts";
export {
  sampledTurnIndices,
  sampledTurnRewards,
  type TurnRewardMean,
  turnRewardMeans,
} from "./turn-rewards.ts";
// vision-language placeholder tokens
export {
  IMAGE_PAD,
  ImageAspectRatioError,
  type ImagePlaceholders,
  imageBytesPlaceholders,
  imagePlaceholderSpan,
  imagePlaceholders,
  PreprocessorConfig,
  type PreprocessorConfigInput,
  QWEN2_5_VL,
  QWEN3_VL,
  smartResize,
  VISION_END,
  VISION_START,
  type VisionPatchConfig,
} from "./vision/image-placeholders.ts";
export {
  IMAGE_CONTEXT_POLICIES,
  type ImageContextPolicy,
  type VisionConfig,
  type VisionSettings,
  visionConfigSchema,
  visionSettings,
} from "./vision/vision-config.ts";
