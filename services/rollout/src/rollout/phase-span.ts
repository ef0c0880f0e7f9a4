// The spans of a turn's phases that wait on another service: `rollout.generate` (the inference
// server) and `rollout.tools` (the gateway, which gets the span's context with the RPC).
import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

const tracer = trace.getTracer("@rlfactory/rollout");

/** Runs `fn` in a child span of the turn; a failure is recorded on the span and rethrown. */
export function inPhaseSpan<T>(phase: "generate" | "tools", fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    phase === "generate" ? "rollout.generate" : "rollout.tools",
    {},
    context.active(),
    async (span: Span) => {
      try {
        return await fn();
      } catch (e) {
        span.recordException(e as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}
