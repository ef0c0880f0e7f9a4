// The Tools view's data: the gateway's merged catalog, each tool beside its server's health and
// breaker state and the tool's call counts and latency p50/p99 from the gateway's metrics.
import type { CallStats, ServerRow, ToolsOverview } from "./api-types.ts";
import type { GatewayAdminClient } from "./gateway-admin-client.ts";
import { histogramQuantile, parsePrometheusText, type Sample } from "./prometheus-text.ts";

const LATENCY = "rlf_gateway_call_duration_seconds_bucket";
const CALLS = "rlf_gateway_calls_total";

export async function toolsOverview(
  client: GatewayAdminClient,
  signal?: AbortSignal,
): Promise<ToolsOverview> {
  const [tools, ready, metrics] = await Promise.all([
    client.tools(signal),
    client.readiness(signal),
    client.metricsText(signal),
  ]);
  const samples = parsePrometheusText(metrics);
  const upstreams = new Map(ready.upstreams.map((u) => [u.name, u]));
  const servers = ready.upstreams.map(
    (u): ServerRow => ({
      server: u.name,
      ...callStats(samples, (s) => s.labels.server === u.name, u.state, u.breaker ?? "unknown"),
    }),
  );
  return {
    gateway_status: ready.status,
    servers,
    tools: tools.map((t) => {
      const u = upstreams.get(t.server);
      return {
        name: t.name,
        server: t.server,
        description: t.description,
        input_schema: safeJson(t.input_schema_json),
        cacheable: t.cacheable,
        idempotent: t.idempotent,
        ...callStats(
          samples,
          (s) => s.labels.server === t.server && s.labels.tool === t.name,
          u?.state ?? "unknown",
          u?.breaker ?? "unknown",
        ),
      };
    }),
  };
}

/** The calls, errors and latency p50/p99 of the samples that are `mine`, beside a health and breaker. */
function callStats(
  samples: readonly Sample[],
  mine: (s: Sample) => boolean,
  health: string,
  breaker: string,
): CallStats {
  const calls = samples.filter((s) => s.name === CALLS && mine(s));
  const buckets = latencyBuckets(samples.filter((s) => s.name === LATENCY && mine(s)));
  const p50 = histogramQuantile(0.5, buckets);
  const p99 = histogramQuantile(0.99, buckets);
  return {
    health,
    breaker,
    calls: sum(calls),
    errors: sum(calls.filter((s) => s.labels.outcome !== "ok")),
    latency_p50_ms: p50 === null ? null : p50 * 1000,
    latency_p99_ms: p99 === null ? null : p99 * 1000,
  };
}

/** Cumulative buckets summed over the other labels (cache hits and misses together). */
function latencyBuckets(samples: readonly Sample[]): [number, number][] {
  const byLe = new Map<number, number>();
  for (const s of samples) {
    const le = s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  return [...byLe];
}

function sum(samples: readonly Sample[]): number {
  return samples.reduce((a, s) => a + s.value, 0);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
