// The judge service's public API: the request language, the core service and its config, the
// servers (HTTP + gRPC), the gRPC proto, metrics, the model backend and calibration.
export { type BackendConfig, backendConfigSchema, createChatBackend } from "./backend/chat-backend.ts";
export type { ChatBackend, ChatBackendRequest, ChatBackendResponse } from "./backend/chat-backend-types.ts";
export {
  type CalibrationItem,
  type CalibrationReport,
  calibrate,
  formatCalibrationReport,
  readCalibrationSet,
} from "./calibrate.ts";
export { JUDGE_GRPC_PORT, JUDGE_HTTP_PORT } from "./default-ports.ts";
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
  createJudgeService,
  type JudgeService,
  type JudgeServiceOptions,
  NO_BACKEND_MESSAGE,
} from "./judge-service.ts";
export {
  HTTP_STATUS,
  JudgeError,
  type JudgeErrorCode,
  type JudgeLimit,
  type JudgeMetadata,
  type JudgeOutcome,
  type JudgeRequest,
  type JudgeRequestInput,
  type JudgeScore,
  judgeErrorCodeSchema,
  judgeRequestSchema,
  judgeSamplingSchema,
} from "./judge-types.ts";
export { type SanitizeResult, sanitizeJudgedText } from "./modes/sanitize.ts";
export { outcomeToJson } from "./server/http-server.ts";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  defaultJudgeLogger,
  type JudgeServer,
  type JudgeServerOptions,
  startJudgeServer,
} from "./server/judge-server.ts";
export { createJudgments, type JudgeServiceHandle, type Judgments } from "./server/judgments.ts";
export { createJudgeMetrics, type JudgeMetrics, type Judgment } from "./server/metrics.ts";
export {
  JUDGE_SERVICE,
  loadJudgeProto,
  outcomeToProto,
  requestFromProto,
} from "./server/proto-codec.ts";
