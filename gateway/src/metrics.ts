// Prometheus metrics. They subscribe to events and read state at scrape time: the request path never
// calls prom-client itself. Label values are bounded: configured server names, catalog tool names,
// error codes (an unknown tool's name never becomes a label).
import { createServiceRegistry } from "@rlfactory/kit";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Catalog } from "./catalog.ts";
import type { Episodes } from "./episodes.ts";
import { InstancePool } from "./instance-pool.ts";
import type { Invoker } from "./invoker.ts";
import { BREAKER_STATES, type UpstreamPolicies } from "./policies.ts";
import { UPSTREAM_STATES, type Upstream } from "./upstream.ts";

export interface MetricsSources {
  invoker: Invoker;
  catalog: Catalog;
  upstreams: readonly Upstream[];
  policies: ReadonlyMap<string, UpstreamPolicies>;
  episodes?: Episodes;
}

export function createMetrics(src: MetricsSources): Registry {
  const registry = createServiceRegistry("gateway"); // with the process metrics, rlf_gateway_process_cpu_…

  const calls = new Counter({
    name: "rlf_gateway_calls_total",
    help: "Tool calls by tool and outcome (ok, tool_error, call_error)",
    labelNames: ["server", "tool", "outcome"],
    registers: [registry],
  });
  const errors = new Counter({
    name: "rlf_gateway_call_errors_total",
    help: "Failed calls by error code",
    labelNames: ["server", "code"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "rlf_gateway_call_duration_seconds",
    help: "Gateway-side latency of tool calls",
    labelNames: ["server", "tool", "cache_hit"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const attempts = new Counter({
    name: "rlf_gateway_upstream_attempts_total",
    help: "Upstream tools/call attempts (retries included)",
    labelNames: ["server"],
    registers: [registry],
  });
  const coalesced = new Counter({
    name: "rlf_gateway_coalesced_calls_total",
    help: "Calls that joined an identical in-flight call instead of executing",
    labelNames: ["server"],
    registers: [registry],
  });
  const cache = new Counter({
    name: "rlf_gateway_cache_requests_total",
    help: "Result cache lookups for cacheable tools",
    labelNames: ["server", "result"],
    registers: [registry],
  });

  src.invoker.on("call", (o) => {
    const server = o.server ?? "none";
    const tool = o.server ? o.name : "unknown";
    const outcome = o.error ? "call_error" : o.output?.isError ? "tool_error" : "ok";
    calls.inc({ server, tool, outcome });
    if (o.error) errors.inc({ server, code: o.error.code });
    latency.observe({ server, tool, cache_hit: String(o.cacheHit) }, o.latencyMs / 1000);
    if (o.attempts > 0) attempts.inc({ server }, o.attempts);
    if (o.coalesced) coalesced.inc({ server });
  });
  src.invoker.on("cache", (result, server) => cache.inc({ server, result }));

  new Gauge({
    name: "rlf_gateway_upstream_in_flight",
    help: "Calls executing on each upstream (bulkhead slots in use)",
    labelNames: ["server"],
    registers: [registry],
    collect() {
      for (const [server, p] of src.policies) this.set({ server }, p.inFlight);
    },
  });
  new Gauge({
    name: "rlf_gateway_upstream_queue_depth",
    help: "Calls waiting for a bulkhead slot on each upstream",
    labelNames: ["server"],
    registers: [registry],
    collect() {
      for (const [server, p] of src.policies) this.set({ server }, p.queued);
    },
  });
  new Gauge({
    name: "rlf_gateway_breaker_state",
    help: "Circuit breaker state per upstream (1 for the current state)",
    labelNames: ["server", "state"],
    registers: [registry],
    collect() {
      for (const [server, p] of src.policies) {
        for (const state of BREAKER_STATES) this.set({ server, state }, p.breakerState === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: "rlf_gateway_upstream_state",
    help: "Connection state per upstream (1 for the current state)",
    labelNames: ["server", "state"],
    registers: [registry],
    collect() {
      for (const u of src.upstreams) {
        for (const state of UPSTREAM_STATES) this.set({ server: u.name, state }, u.state === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: "rlf_gateway_tools",
    help: "Tools in the merged catalog per upstream",
    labelNames: ["server"],
    registers: [registry],
    collect() {
      for (const u of src.upstreams) this.set({ server: u.name }, src.catalog.list(u.name).length);
    },
  });
  const episodeCounters = {
    started: new Counter({
      name: "rlf_gateway_episodes_started_total",
      help: "Episodes started (StartEpisode)",
      labelNames: ["server"],
      registers: [registry],
    }),
    forked: new Counter({
      name: "rlf_gateway_episodes_forked_total",
      help: "Episodes created by ForkEpisode (one per copy)",
      labelNames: ["server"],
      registers: [registry],
    }),
    ended: new Counter({
      name: "rlf_gateway_episodes_ended_total",
      help: "Episodes ended by EndEpisode",
      labelNames: ["server"],
      registers: [registry],
    }),
    expired: new Counter({
      name: "rlf_gateway_episodes_expired_total",
      help: "Episodes ended by the gateway: idle timeout or ttl",
      labelNames: ["server"],
      registers: [registry],
    }),
    lost: new Counter({
      name: "rlf_gateway_episodes_lost_total",
      help: "Live episodes whose environment server died or no longer held them",
      labelNames: ["server"],
      registers: [registry],
    }),
  };
  src.episodes?.on("episode", (server, event, count) => episodeCounters[event].inc({ server }, count));
  new Gauge({
    name: "rlf_gateway_episodes_live",
    help: "Live episodes on each environment server (as seen by this gateway)",
    labelNames: ["server"],
    registers: [registry],
    collect() {
      for (const [server, n] of src.episodes?.liveCounts() ?? []) this.set({ server }, n);
    },
  });
  new Gauge({
    name: "rlf_gateway_episode_instances",
    help: "Processes of per-episode-instance servers: idle (warm), busy (held by an episode), starting",
    labelNames: ["server", "state"],
    registers: [registry],
    collect() {
      for (const u of src.upstreams) {
        if (!(u instanceof InstancePool)) continue;
        for (const [state, n] of Object.entries(u.counts())) this.set({ server: u.name, state }, n);
      }
    },
  });
  return registry;
}
