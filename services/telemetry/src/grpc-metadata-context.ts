// The trace context a gRPC call's metadata carries (keys `traceparent` / `tracestate`), for servers.
import { type Context, ROOT_CONTEXT } from "@opentelemetry/api";
import { carrierValue } from "./carrier-value.ts";
import type { ReadableMetadata } from "./grpc-metadata.ts";
import { TRACEPARENT_KEY, TRACESTATE_KEY, w3cPropagator } from "./trace-carrier.ts";

/** The context continuing the trace carried in the call's metadata (ROOT_CONTEXT-based). */
export function contextFromGrpcMetadata(md: ReadableMetadata): Context {
  return w3cPropagator.extract(ROOT_CONTEXT, md, {
    get: (carrier, key) => carrierValue(carrier.get(key)),
    keys: () => [TRACEPARENT_KEY, TRACESTATE_KEY],
  });
}
