// The judge service's public API: the request language, the core service and its config, the
// servers (HTTP + gRPC), the gRPC proto, metrics, the model backend and calibration.
export { type BackendConfig, backendConfigSchema, createChatBackend } from "./backend.ts";
export {
  type CalibrationItem,
  type CalibrationReport,
  calibrate,
  formatCalibrationReport,
  readCalibrationSet,
} from "./calibrate.ts";
export type { ChatBackend, ChatBackendRequest, ChatBackendResponse } from "./chat-backend-types.ts";
export { outcomeToJson } from "./http-server.ts";
export {
  type JudgeConfig,
  JudgeConfigError,
  type JudgeConfigInput,
  judgeConfigFromEnv,
  judgeConfigSchema,
  loadJudgeConfig,
  parseJudgeConfig,
} from "./judge-config.ts";
export {
  createJudgments,
  DEFAULT_MAX_MESSAGE_BYTES,
  defaultJudgeLogger,
  type JudgeServer,
  type JudgeServerOptions,
  type JudgeServiceHandle,
  type Judgments,
  startJudgeServer,
} from "./judge-server.ts";
export {
  createJudgeService,
  type JudgeService,
  type JudgeServiceOptions,
  NO_BACKEND_MESSAGE,
} from "./judge-service.ts";
export * from "./judge-types.ts";
export { createJudgeMetrics, type JudgeMetrics, type Judgment } from "./metrics.ts";
export {
  JUDGE_PROTO,
  JUDGE_SERVICE,
  judgeClientConstructor,
  loadJudgeProto,
  outcomeToProto,
  requestFromProto,
} from "./proto.ts";
