// The Traces view's data: a trajectory's tool calls as bars on one time axis. From Jaeger when the
// console has --jaeger and the trajectory carries its trace id: one bar per gateway call span (the
// span the gateway annotates once per call: `gen_ai.operation.name` execute_tool with `rlf.cache_hit`),
// at its real start. Else from the record: a call's latency_ms is known but not its start, so the calls
// of one turn start together (the rollout issues them at once) and each turn starts when the longest
// call of the turn before ended; generation time is not in the record and is not drawn.
import type { Trajectory } from "@rlfactory/contracts";
import type { Timeline, TimelineBar } from "./api-types.ts";
import type { JaegerClient, JaegerSpan } from "./jaeger-client.ts";

export async function toolCallTimeline(
  t: Trajectory,
  traceId: string | null,
  jaeger: JaegerClient | undefined,
): Promise<Timeline> {
  let jaegerError: string | null = null;
  if (jaeger !== undefined) {
    if (traceId === null) jaegerError = "the trajectory has no trace_id (its rollout ran without telemetry)";
    else {
      try {
        return {
          source: "jaeger",
          trace_id: traceId,
          jaeger_error: null,
          bars: barsFromSpans(await jaeger.traceSpans(traceId)),
        };
      } catch (err) {
        jaegerError = (err as Error).message;
      }
    }
  }
  return { source: "record", trace_id: traceId, jaeger_error: jaegerError, bars: barsFromRecord(t) };
}

const tagValue = (s: JaegerSpan, key: string): unknown => s.tags.find((x) => x.key === key)?.value;

export function barsFromSpans(spans: readonly JaegerSpan[]): TimelineBar[] {
  const calls = spans.filter(
    (s) =>
      tagValue(s, "gen_ai.operation.name") === "execute_tool" && tagValue(s, "rlf.cache_hit") !== undefined,
  );
  const t0 = Math.min(...spans.map((s) => s.startTime));
  return calls
    .sort((a, b) => a.startTime - b.startTime)
    .map((s) => {
      const failed = tagValue(s, "otel.status_code") === "ERROR" || tagValue(s, "error") === true;
      return {
        name: String(tagValue(s, "gen_ai.tool.name") ?? s.operationName),
        start_ms: (s.startTime - t0) / 1000,
        duration_ms: s.duration / 1000,
        error: failed ? String(tagValue(s, "otel.status_description") ?? "ERROR") : null,
        turn: null,
        span_id: s.spanID,
      };
    });
}

export function barsFromRecord(t: Trajectory): TimelineBar[] {
  const bars: TimelineBar[] = [];
  let at = 0;
  let turn: number | null | undefined;
  let turnEnd = 0;
  for (const c of t.tool_calls) {
    const callTurn = c.turn ?? null;
    // A new turn (or calls without one: one after another) starts when the previous ones ended.
    if (callTurn === null || callTurn !== turn) at = turnEnd;
    turn = callTurn;
    bars.push({ name: c.name, start_ms: at, duration_ms: c.latency_ms, error: c.error_code, turn: callTurn });
    turnEnd = Math.max(turnEnd, at + c.latency_ms);
  }
  return bars;
}
