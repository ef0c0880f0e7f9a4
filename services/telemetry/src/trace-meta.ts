// Trace context in MCP request `_meta` (`params._meta.traceparent` / `tracestate`).
import { type Context, context, ROOT_CONTEXT } from "@opentelemetry/api";
import { carrierValue } from "./carrier-value.ts";
import { TRACEPARENT_KEY, TRACESTATE_KEY, w3cPropagator } from "./trace-carrier.ts";

/**
 * A copy of `meta` carrying the `traceparent` (and `tracestate`, when the context has one) of `ctx`
 * (default: the active context). Without a valid span in the context the copy is returned as is.
 */
export function injectTraceMeta(
  meta?: Record<string, unknown>,
  ctx: Context = context.active(),
): Record<string, unknown> {
  const carrier: Record<string, string> = {};
  w3cPropagator.inject(ctx, carrier, {
    set(target, key, value) {
      target[key] = value;
    },
  });
  const out: Record<string, unknown> = { ...meta };
  if (carrier[TRACEPARENT_KEY] === undefined) return out;
  // A stale tracestate from another trace must not ride along with the new traceparent.
  delete out[TRACESTATE_KEY];
  return Object.assign(out, carrier);
}

/** The context continuing the trace named by `meta.traceparent` / `meta.tracestate` (ROOT_CONTEXT-based). */
export function extractTraceContext(meta: Record<string, unknown> | undefined): Context {
  if (meta === undefined || meta === null || typeof meta !== "object") return ROOT_CONTEXT;
  return w3cPropagator.extract(ROOT_CONTEXT, meta, {
    get: (carrier, key) => carrierValue(carrier[key]),
    keys: (carrier) => Object.keys(carrier),
  });
}
