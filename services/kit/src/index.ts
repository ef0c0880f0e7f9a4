// @rlfactory/kit — the service kit: plumbing shared by the gateway, the judge and the rollout service.
export { canonicalJson, sha256Hex } from "./canonical-json.ts";
export {
  ENDPOINT_POOL_DEFAULTS,
  EndpointPool,
  type EndpointPoolOptions,
  type EndpointStatus,
  type PoolEndpoint,
} from "./endpoint-pool.ts";
export { callerGone, type GrpcHost, startGrpcHost } from "./grpc-host.ts";
export { createServiceRegistry, metricName, metricPrefix } from "./metrics-registry.ts";
export { hash32, rngStream, unit } from "./seeded-random.ts";
export { raceSignal, SingleFlight } from "./single-flight.ts";
