// Trace context in gRPC metadata (keys `traceparent` / `tracestate`), structurally typed so that
// this package does not depend on @grpc/grpc-js (its `Metadata` class fits both shapes).
import { type Context, context, ROOT_CONTEXT } from "@opentelemetry/api";
import { carrierValue, TRACEPARENT_KEY, TRACESTATE_KEY, w3cPropagator } from "./trace-carrier.ts";

export interface ReadableMetadata {
  get(key: string): unknown[];
}

export interface WritableMetadata {
  set(key: string, value: string): void;
}

/** The context continuing the trace carried in the call's metadata (ROOT_CONTEXT-based). */
export function contextFromGrpcMetadata(md: ReadableMetadata): Context {
  return w3cPropagator.extract(ROOT_CONTEXT, md, {
    get: (carrier, key) => carrierValue(carrier.get(key)),
    keys: () => [TRACEPARENT_KEY, TRACESTATE_KEY],
  });
}

/** Writes `traceparent` (and `tracestate`) of `ctx` (default: the active context) into `md`. */
export function injectGrpcMetadata(md: WritableMetadata, ctx: Context = context.active()): void {
  w3cPropagator.inject(ctx, md, {
    set(carrier, key, value) {
      carrier.set(key, value);
    },
  });
}
