// @rlfactory/clients — promise clients of the rlfactory services and the wire forms they speak, with no
// server dependencies: the tool gateway (gateway-client.ts; its admin call log, gateway-call-log.ts), the
// rollout service (rollout-client.ts, its request and trajectory wire forms) and the judge
// (judge-client.ts). The export list is explicit.

export {
  adminBaseFromMcpUrl,
  type FetchGatewayCallsOptions,
  fetchGatewayCalls,
  type GatewayCallLog,
  type GatewayLoggedCall,
  gatewayCallLogSchema,
} from "./gateway-call-log.ts";
export { GatewayClient, type GatewayClientOptions, resultText } from "./gateway-client.ts";
export { normaliseServerUrl, serverUrlSchema } from "./inference-server-url.ts";
export { type JudgeCallOptions, JudgeClient, type JudgeClientOptions } from "./judge-client.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, type RolloutCallOptions, RolloutClient } from "./rollout-client.ts";
export {
  describeRequestIssues,
  MAX_GROUP_SIZE,
  REQUEST_ENGINE_NAMES,
  RolloutRequestError,
  type RolloutRequestInput,
  requestFromProto,
  requestToProto,
  rolloutRequestSchema,
  samplingOverridesSchema,
} from "./rollout-request.ts";
export {
  groupFromProto,
  groupToJson,
  groupToProto,
  TrajectoryDecodeError,
  type TrajectoryGroupJson,
  trajectoryFromProto,
  trajectoryToProto,
} from "./trajectory-codec.ts";
