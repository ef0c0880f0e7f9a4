// The resilience part of the policy stack, built from cockatiel policies and composed in ONE place.
//
// The full per-call stack, outermost first (deadline and cache live in invoker.ts because they need
// the call's own data; everything below is per upstream):
//
//   deadline (invoker)            one AbortSignal for the whole call, from the request, capped by config
//   cache + single-flight (invoker)
//   retry                         only for idempotent tools; only UNAVAILABLE / UPSTREAM_ERROR; never on an
//                                 open circuit (BrokenCircuitError is not retryable); backoff with jitter;
//                                 every attempt runs inside the remaining deadline
//   circuit breaker               per upstream; counts only faults attributable to the server (below)
//   bulkhead                      per upstream: max in flight + bounded queue, RATE_LIMITED beyond
//   upstream call                 MCP tools/call with the signal (cancellation is sent upstream)
//
// What counts against a server's breaker (errors.ts isUpstreamFault; cockatiel counts only what its
// `handleWhen` filter matches, anything else passes through uncounted):
//   counts      UNAVAILABLE (transport: connection closed/refused, process gone), UPSTREAM_ERROR (protocol:
//               JSON-RPC error, invalid result), and TIMEOUT measured against the server's CONFIGURED
//               deadline (`deadline_ms`, capped by `max_deadline_ms`), so a hung server still opens it
//   never       a call its caller ended (CallerAbortError): the caller's own deadline, shorter than the
//               configured one (the request's `deadline_ms` or the gRPC deadline), passed; or the caller
//               went away (CANCELLED). Nor a result with `isError: true` (a normal outcome), a call
//               refused by the bulkhead (RATE_LIMITED), or a caller mistake (INVALID_ARGUMENTS, ...)
// A call that is not counted leaves the consecutive-failure count as it was (cockatiel neither resets
// nor advances it). One a caller ends during a half-open trial settles that trial as a success.
import {
  type BulkheadPolicy,
  bulkhead,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  type IPolicy,
  retry,
  wrap,
} from "cockatiel";
import type { UpstreamPolicy } from "./config.ts";
import { isRetryable, isUpstreamFault } from "./errors.ts";

/** Every state a server's circuit breaker can be in (`isolated`: held open by hand, never by failures). */
export const BREAKER_STATES = ["closed", "open", "half_open", "isolated"] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

const FROM_COCKATIEL: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: "closed",
  [CircuitState.Open]: "open",
  [CircuitState.HalfOpen]: "half_open",
  [CircuitState.Isolated]: "isolated",
};

export interface RetrySettings {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The per-upstream policies (shared by all of its tools). */
export class UpstreamPolicies {
  readonly breaker: CircuitBreakerPolicy;
  readonly bulkhead: BulkheadPolicy;
  readonly #bulkheadSize: { maxConcurrent: number; maxQueue: number };
  readonly #withRetry = new Map<string, IPolicy>();
  readonly #noRetry: IPolicy;

  constructor(policy: UpstreamPolicy) {
    this.breaker = circuitBreaker(handleWhen(isUpstreamFault), {
      halfOpenAfter: policy.breaker.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(policy.breaker.consecutiveFailures),
    });
    this.bulkhead = bulkhead(policy.bulkhead.maxConcurrent, policy.bulkhead.maxQueue);
    this.#bulkheadSize = policy.bulkhead;
    this.#noRetry = wrap(this.breaker, this.bulkhead);
  }

  get breakerState(): BreakerState {
    return FROM_COCKATIEL[this.breaker.state];
  }
  get inFlight(): number {
    return this.#bulkheadSize.maxConcurrent - this.bulkhead.executionSlots;
  }
  get queued(): number {
    return this.#bulkheadSize.maxQueue - this.bulkhead.queueSlots;
  }

  /**
   * The stack below the cache for one call: retry (idempotent tools only) → breaker → bulkhead.
   * `fn` receives the attempt's signal and 1-based attempt number.
   */
  stackFor(idempotent: boolean, s: RetrySettings): IPolicy {
    if (!idempotent || s.maxAttempts <= 1) return this.#noRetry;
    // Built once per distinct retry setting, not per call.
    const key = `${s.maxAttempts}/${s.initialDelayMs}/${s.maxDelayMs}`;
    let stack = this.#withRetry.get(key);
    if (!stack) {
      const retryPolicy = retry(handleWhen(isRetryable), {
        // cockatiel counts retries, we count attempts.
        maxAttempts: s.maxAttempts - 1,
        // Exponential with cockatiel's decorrelated jitter.
        backoff: new ExponentialBackoff({
          initialDelay: Math.max(1, s.initialDelayMs),
          maxDelay: s.maxDelayMs,
        }),
      });
      stack = wrap(retryPolicy, this.breaker, this.bulkhead);
      this.#withRetry.set(key, stack);
    }
    return stack;
  }
}
