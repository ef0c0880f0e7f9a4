import { ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from "@opentelemetry/api";
import { suppressTracing, TraceState, W3CTraceContextPropagator } from "@opentelemetry/core";
import { describe, expect, it } from "vitest";
import { writeTraceContext } from "./trace-context-writer.ts";

const span: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
};
const propagator = new W3CTraceContextPropagator();

const written = (ctx: typeof ROOT_CONTEXT): Record<string, string> => {
  const out: Record<string, string> = {};
  writeTraceContext(ctx, (key, value) => {
    out[key] = value;
  });
  return out;
};
const injected = (ctx: typeof ROOT_CONTEXT): Record<string, string> => {
  const out: Record<string, string> = {};
  propagator.inject(ctx, out, {
    set(carrier, key, value) {
      carrier[key] = value;
    },
  });
  return out;
};

describe("writeTraceContext writes what the W3C propagator injects", () => {
  const cases: Record<string, typeof ROOT_CONTEXT> = {
    "a sampled span": trace.setSpanContext(ROOT_CONTEXT, span),
    "an unsampled span": trace.setSpanContext(ROOT_CONTEXT, { ...span, traceFlags: TraceFlags.NONE }),
    "flags beyond sampled": trace.setSpanContext(ROOT_CONTEXT, { ...span, traceFlags: 0x1f }),
    "a span with tracestate": trace.setSpanContext(ROOT_CONTEXT, {
      ...span,
      traceState: new TraceState("vendor=1,other=two"),
    }),
    "an invalid span context": trace.setSpanContext(ROOT_CONTEXT, { ...span, traceId: "0".repeat(32) }),
    "suppressed tracing": suppressTracing(trace.setSpanContext(ROOT_CONTEXT, span)),
    "no span": ROOT_CONTEXT,
  };
  for (const [name, ctx] of Object.entries(cases)) {
    it(name, () => {
      expect(written(ctx)).toEqual(injected(ctx));
    });
  }

  it("writes traceparent and tracestate for a span with state, nothing without a span", () => {
    expect(written(cases["a span with tracestate"]!)).toEqual({
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "vendor=1,other=two",
    });
    expect(written(ROOT_CONTEXT)).toEqual({});
    expect(written(cases["suppressed tracing"]!)).toEqual({});
  });
});
