// @rlfactory/train — training over the Tinker API (SkyRL's Tinker-compatible server, hosted Tinker):
// the pinned wire schema, the HTTP client with futures, a TokenSampler over Tinker sampling for the
// rollout engine, trajectories → datums, the config and the GRPO training loop with checkpoints
// (README.md here). The export list is explicit: what is not here is internal.
export { CHECKPOINT_FILE, type TrainCheckpoint, trainCheckpointSchema } from "./checkpoint.ts";
export { buildDatums, type DatumBatch, type SkipReason, trajectoryToDatum } from "./datum.ts";
export { isTinkerApiError, TinkerApiError, type TinkerErrorCode, TrainRunError } from "./errors.ts";
export { METRICS_FILE, TRAJECTORIES_DIR } from "./run-outputs.ts";
export { type StepMetrics, stepMetricsSchema } from "./step-metrics.ts";
export { TinkerClient, type TinkerClientOptions, type TinkerRetryEvent } from "./tinker-client.ts";
export { TinkerSampler, type TinkerSamplerOptions } from "./tinker-sampler.ts";
export { type Datum, TINKER_PATHS, TINKER_REQUEST_SCHEMAS } from "./tinker-schema.ts";
export {
  adamSectionSchema,
  loadTrainConfig,
  parseTrainConfig,
  type TrainConfig,
  TrainConfigError,
  tinkerSectionSchema,
  trainSectionSchema,
} from "./train-config.ts";
export { runTraining, type TrainEvent, type TrainResult, type TrainRunOptions } from "./train-loop.ts";
