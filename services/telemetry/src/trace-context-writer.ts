// Writes the W3C trace-context fields of a context (`traceparent`, `tracestate`) with
// @opentelemetry/api alone: what W3CTraceContextPropagator.inject writes, without loading
// @opentelemetry/core (and with it the semantic conventions), which a short-lived client such as
// `rlf tools list` would otherwise pay for before it connects. Extraction still uses the propagator
// (trace-carrier.ts). Checked against the propagator in trace-context-writer.test.ts.
import { type Context, createContextKey, TraceFlags, trace } from "@opentelemetry/api";

export const TRACEPARENT_KEY = "traceparent";
export const TRACESTATE_KEY = "tracestate";

/** The key @opentelemetry/core's suppressTracing sets (context keys are `Symbol.for(description)`). */
const SUPPRESS_TRACING_KEY = createContextKey("OpenTelemetry SDK Context Key SUPPRESS_TRACING");

/**
 * Calls `set(key, value)` for `traceparent` (and `tracestate`, when the span context has one) of
 * `ctx`'s span; nothing without a valid span context or while tracing is suppressed.
 */
export function writeTraceContext(ctx: Context, set: (key: string, value: string) => void): void {
  const span = trace.getSpanContext(ctx);
  if (!span || ctx.getValue(SUPPRESS_TRACING_KEY) === true || !trace.isSpanContextValid(span)) return;
  const flags = Number(span.traceFlags || TraceFlags.NONE).toString(16);
  set(TRACEPARENT_KEY, `00-${span.traceId}-${span.spanId}-0${flags}`);
  if (span.traceState) set(TRACESTATE_KEY, span.traceState.serialize());
}
