// Trace context in gRPC metadata (keys `traceparent` / `tracestate`), structurally typed so that
// this package does not depend on @grpc/grpc-js (its `Metadata` class fits both shapes).
import { type Context, context } from "@opentelemetry/api";
import { writeTraceContext } from "./trace-context-writer.ts";

export interface ReadableMetadata {
  get(key: string): unknown[];
}

export interface WritableMetadata {
  set(key: string, value: string): void;
}

/** Writes `traceparent` (and `tracestate`) of `ctx` (default: the active context) into `md`. */
export function injectGrpcMetadata(md: WritableMetadata, ctx: Context = context.active()): void {
  writeTraceContext(ctx, (key, value) => md.set(key, value));
}
