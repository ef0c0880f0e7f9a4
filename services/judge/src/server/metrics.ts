// Prometheus metrics of the judge service (GET /metrics). They subscribe to one event per finished
// request (`Judgment`, emitted by judge-server.ts); request handlers never call prom-client. Label
// values are bounded: the five modes plus "invalid", the typed error codes, the two transports.
import { createServiceRegistry } from "@rlfactory/kit";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { JudgeOutcome, JudgeRequest } from "../judge-types.ts";

/** One finished request, as the metrics (and logs) see it. */
export interface Judgment {
  /** The request's mode, or "invalid" when the request could not be read. */
  mode: JudgeRequest["mode"] | "invalid";
  transport: "http" | "grpc";
  outcome: JudgeOutcome;
  seconds: number;
}

export interface JudgeMetrics {
  registry: Registry;
  /** A request started (in-flight gauge). */
  started(): void;
  /** A request finished. */
  finished(judgment: Judgment): void;
}

export function createJudgeMetrics(): JudgeMetrics {
  const registry = createServiceRegistry("judge"); // with the process metrics, rlf_judge_process_cpu_…

  const requests = new Counter({
    name: "rlf_judge_requests_total",
    help: "Judge requests by mode, transport and outcome (ok, error)",
    labelNames: ["mode", "transport", "outcome"],
    registers: [registry],
  });
  const failures = new Counter({
    name: "rlf_judge_failures_total",
    help: "Failed judge requests by mode and typed error code",
    labelNames: ["mode", "code"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "rlf_judge_request_duration_seconds",
    help: "Judge request latency, as the service saw it",
    labelNames: ["mode", "outcome"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const cacheHits = new Counter({
    name: "rlf_judge_cache_hits_total",
    help: "Judge results answered from the cache",
    labelNames: ["mode"],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "rlf_judge_tokens_total",
    help: "Judge model tokens spent, by kind (prompt, completion)",
    labelNames: ["mode", "kind"],
    registers: [registry],
  });
  const calls = new Counter({
    name: "rlf_judge_backend_calls_total",
    help: "Judge model calls made (samples x orders x retries)",
    labelNames: ["mode"],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: "rlf_judge_in_flight",
    help: "Judge requests being served",
    registers: [registry],
  });

  return {
    registry,
    started: () => inFlight.inc(),
    finished({ mode, transport, outcome, seconds }) {
      inFlight.dec();
      const label = outcome.ok ? "ok" : "error";
      requests.inc({ mode, transport, outcome: label });
      latency.observe({ mode, outcome: label }, seconds);
      if (!outcome.ok) {
        failures.inc({ mode, code: outcome.error.code });
        return;
      }
      const meta = outcome.result.metadata;
      if (meta.cached) {
        cacheHits.inc({ mode });
        return;
      }
      if (meta.tokens.prompt > 0) tokens.inc({ mode, kind: "prompt" }, meta.tokens.prompt);
      if (meta.tokens.completion > 0) tokens.inc({ mode, kind: "completion" }, meta.tokens.completion);
      if (meta.calls > 0) calls.inc({ mode }, meta.calls);
    },
  };
}
