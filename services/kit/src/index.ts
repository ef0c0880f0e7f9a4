// @rlfactory/kit — the service kit: plumbing shared by the gateway, the judge and the rollout service.
export { canonicalJson, sha256Hex } from "./canonical-json.ts";
export {
  ConfigFileError,
  type ConfigFileOptions,
  loadConfigFile,
  parseConfig,
  readConfigFile,
} from "./config-file.ts";
export { callerGone, type GrpcHost, startGrpcHost } from "./grpc-host.ts";
export { hash32, rngStream, unit } from "./seeded-random.ts";
export { raceSignal, SingleFlight } from "./single-flight.ts";
