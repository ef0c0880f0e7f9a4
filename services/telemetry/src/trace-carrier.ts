// The W3C trace-context carrier shared by every propagation helper in this package.
//
// MCP `_meta` and gRPC metadata both carry the W3C keys verbatim (`traceparent`, `tracestate`), so
// the helpers use the W3C propagator directly rather than the global one: they behave the same
// whether or not `startTelemetry` installed an SDK, and whatever OTEL_PROPAGATORS says.
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { z } from "zod";

export const TRACEPARENT_KEY = "traceparent";
export const TRACESTATE_KEY = "tracestate";

export const w3cPropagator = new W3CTraceContextPropagator();

/** A W3C header value as it may arrive from a peer; anything else is ignored, never trusted. */
const HeaderValue = z.string().min(1).max(512);

/** The first usable string among the values a carrier holds for one key. */
export function carrierValue(raw: unknown): string | undefined {
  const first = Array.isArray(raw) ? raw[0] : raw;
  const text = first instanceof Uint8Array ? Buffer.from(first).toString("utf8") : first;
  const parsed = HeaderValue.safeParse(text);
  return parsed.success ? parsed.data : undefined;
}
