// The rollout service's public API: start it in front of an engine, call it, convert its messages.
export {
  isBadRequest,
  RolloutRequestError,
} from "./errors.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, loadRolloutProto, ROLLOUT_PROTO, ROLLOUT_SERVICE } from "./proto.ts";
export { type RolloutCallOptions, RolloutClient } from "./rollout-client.ts";
export {
  MAX_GROUP_SIZE,
  type ParsedRolloutRequest,
  parseRolloutRequest,
  type RolloutRequestInput,
  rolloutRequestSchema,
  samplingOverridesSchema,
} from "./rollout-request.ts";
export {
  defaultServiceLogger,
  type RolloutServiceHandle,
  type RolloutServiceOptions,
  startRolloutService,
} from "./rollout-service.ts";
export {
  groupFromProto,
  groupToJson,
  groupToProto,
  TrajectoryDecodeError,
  type TrajectoryGroupJson,
  trajectoryFromProto,
  trajectoryToProto,
} from "./trajectory-codec.ts";
