export type { ReadableMetadata, WritableMetadata } from "./grpc-metadata.ts";
export { injectGrpcMetadata } from "./grpc-metadata.ts";
export { contextFromGrpcMetadata } from "./grpc-metadata-context.ts";
export type { Telemetry, TelemetryOptions } from "./start-telemetry.ts";
export { startTelemetry, tracingRequested } from "./start-telemetry.ts";
export { extractTraceContext, injectTraceMeta } from "./trace-meta.ts";
