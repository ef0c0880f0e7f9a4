// @rlfactory/kit — the service kit: plumbing shared by the gateway, the judge and the rollout service.
export { ApiKeyAuth, ApiKeysEnvError, apiKeysFromEnv, MIN_API_KEY_LENGTH } from "./api-keys.ts";
export { type CallerGone, callerGone, httpCallerGone } from "./caller-gone.ts";
export { argumentsSha256, canonicalJson, sha256Hex } from "./canonical-json.ts";
export { portArg, stopOnSignals, UsageError } from "./command-line.ts";
export {
  ConfigFileError,
  type ConfigFileOptions,
  loadConfigFile,
  parseConfig,
  readConfigFile,
} from "./config-file.ts";
export {
  ENDPOINT_POOL_DEFAULTS,
  EndpointPool,
  type EndpointPoolOptions,
  type EndpointStatus,
  type PoolEndpoint,
} from "./endpoint-pool.ts";
export { type GrpcHost, startGrpcHost } from "./grpc-host.ts";
export {
  type ImageHeaderFormat,
  type ImageHeaderSize,
  imageHeaderFormat,
  imageHeaderSize,
} from "./image-size.ts";
export type { KeyValueStore } from "./key-value-store.ts";
export { enginesPython, rlfactoryCacheDir } from "./local-paths.ts";
export { createMemoryStore, type MemoryStoreOptions } from "./memory-store.ts";
export { createServiceRegistry, metricPrefix } from "./metrics-registry.ts";
export { OVERSIZED_BODY_DRAIN_FACTOR, type OversizedBody, readOversizedBody } from "./oversized-body.ts";
export { extent, nearestRankPercentile, percentileOfSorted, sortAscending } from "./percentile.ts";
export { createRedisStore, DEFAULT_REDIS_READY_TIMEOUT_MS, type RedisStoreOptions } from "./redis-store.ts";
export { hash32, rngStream, unit } from "./seeded-random.ts";
export { raceSignal, SingleFlight } from "./single-flight.ts";
