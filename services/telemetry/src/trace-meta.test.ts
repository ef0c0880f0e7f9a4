import { ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { injectGrpcMetadata } from "./grpc-metadata.ts";
import { contextFromGrpcMetadata } from "./grpc-metadata-context.ts";
import { extractTraceContext, injectTraceMeta } from "./trace-meta.ts";

const remote: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
};
const withSpan = trace.setSpanContext(ROOT_CONTEXT, remote);

/** gRPC-like metadata: values are lists, keys are lower-case. */
class FakeMetadata {
  readonly map = new Map<string, unknown[]>();
  get(key: string): unknown[] {
    return this.map.get(key) ?? [];
  }
  set(key: string, value: string): void {
    this.map.set(key, [value]);
  }
}

describe("MCP _meta trace propagation", () => {
  it("injects the context's traceparent and extracts the same trace", () => {
    const meta = injectTraceMeta({ progressToken: 3 }, withSpan);
    expect(meta).toMatchObject({
      progressToken: 3,
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    });

    const extracted = trace.getSpanContext(extractTraceContext(meta));
    expect(extracted?.traceId).toBe(remote.traceId);
    expect(extracted?.spanId).toBe(remote.spanId);
    expect(extracted?.isRemote).toBe(true);
  });

  it("copies instead of mutating and keeps the meta unchanged without a span", () => {
    const original = { traceparent: "00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01", other: "x" };
    expect(injectTraceMeta(original, ROOT_CONTEXT)).toEqual(original);
    const injected = injectTraceMeta(original, withSpan);
    expect(injected).not.toBe(original);
    expect(original.traceparent).toContain("aaaa");
    expect(injected.traceparent).toContain(remote.traceId);
  });

  it("carries tracestate and drops a stale one", () => {
    const carrier = injectTraceMeta({}, withSpan);
    const ctx = extractTraceContext({ ...carrier, tracestate: "vendor=1" });
    expect(injectTraceMeta({}, ctx).tracestate).toBe("vendor=1");
    expect(injectTraceMeta({ tracestate: "stale=1" }, withSpan).tracestate).toBeUndefined();
  });

  it("ignores absent or malformed trace context", () => {
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext({ traceparent: 42 }))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext({ traceparent: "not-a-traceparent" }))).toBeUndefined();
  });
});

describe("gRPC metadata trace propagation", () => {
  it("round-trips through metadata", () => {
    const md = new FakeMetadata();
    injectGrpcMetadata(md, withSpan);
    expect(md.get("traceparent")).toEqual(["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]);
    const extracted = trace.getSpanContext(contextFromGrpcMetadata(md));
    expect(extracted?.traceId).toBe(remote.traceId);
    expect(extracted?.spanId).toBe(remote.spanId);
  });

  it("accepts binary values and yields a root context without metadata", () => {
    const md = new FakeMetadata();
    md.map.set("traceparent", [Buffer.from("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]);
    expect(trace.getSpanContext(contextFromGrpcMetadata(md))?.traceId).toBe(remote.traceId);
    expect(trace.getSpanContext(contextFromGrpcMetadata(new FakeMetadata()))).toBeUndefined();
  });
});
