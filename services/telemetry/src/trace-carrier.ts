// The W3C trace-context carrier shared by every propagation helper in this package.
//
// MCP `_meta` and gRPC metadata both carry the W3C keys verbatim (`traceparent`, `tracestate`), so
// the helpers use the W3C propagator directly rather than the global one: they behave the same
// whether or not `startTelemetry` installed an SDK, and whatever OTEL_PROPAGATORS says. Injection
// into gRPC metadata writes the same fields without it (trace-context-writer.ts).
import { W3CTraceContextPropagator } from "@opentelemetry/core";

export { TRACEPARENT_KEY, TRACESTATE_KEY } from "./trace-context-writer.ts";

export const w3cPropagator = new W3CTraceContextPropagator();
