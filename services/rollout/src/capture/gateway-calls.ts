// The gateway's account of an agent's tool calls, joined into the record's `tool_calls`
// (docs/agents.md, "Tool calls"). The conversation says which call the model made and what it was
// shown; the gateway's call log (`GET /v1/calls?trajectory=T`) says how each call it served ended. The
// join sets a matched call's `error_code`, `is_error` and `latency_ms` from the gateway, as the built-in
// loop records them from the gateway's answer (observe-phase.ts):
//
//   gateway error_code ≠ OK   → error_code = that code (TIMEOUT, UNAVAILABLE, ...), is_error true
//   the tool's isError        → error_code = TOOL_ERROR, is_error true
//   OK                        → error_code null, is_error false
//   latency_ms                → the time in the gateway (not the agent's round trip)
//
// Matching: the record's calls in order (the model's order); each takes the gateway call with the same
// tool name and the same arguments (digest of their canonical JSON, so key order does not matter)
// that comes first in the log's order among those not taken yet. Parallel calls finishing out of order
// still pair up; a call the agent repeated (a retry) leaves the later copies unmatched. A call that
// matches nothing — the agent ran it in its own code, renamed the tool or changed the arguments, or
// the log had forgotten it — keeps what the conversation says. Malformed attempts never reached a tool
// and are not matched.
import type { GatewayCallLog, GatewayLoggedCall } from "@rlfactory/clients/gateway-call-log";
import { MALFORMED_CODE_PREFIX, TOOL_ERROR_CODE, type ToolCallRecord } from "@rlfactory/contracts";
import { argumentsSha256 } from "@rlfactory/kit";

/** What the join found, kept on the record's `metadata.capture`. */
export interface GatewayJoin {
  /** Calls the gateway logged for the trajectory (kept ones; `gateway_calls_dropped` more past its cap). */
  gateway_calls: number;
  /** Of those, the ones no call of the conversation matched: the agent's own calls, its retries. */
  gateway_calls_unmatched: number;
  /** Logged calls that failed (a gateway error code or the tool's isError), matched or not. */
  gateway_calls_failed: number;
  /** Calls past the gateway's per-trajectory cap: counted there, not logged. */
  gateway_calls_dropped: number;
  /** The conversation's calls (malformed attempts aside) that matched no gateway call. */
  tool_calls_unmatched: number;
}

type CallRecord = Omit<ToolCallRecord, "turn">;

const failed = (c: GatewayLoggedCall) => c.error_code !== "OK" || c.is_error;

/**
 * The calls `after` logged that `before` had not: a trajectory id can repeat across runs (`task#r1/0`),
 * so the gateway may hold an earlier run's calls under it. Calls are numbered per trajectory in the
 * log (`seq`); those numbered from `before`'s count on are new. A count that went down means the
 * gateway forgot the trajectory in between (TTL, eviction): then every call `after` holds is new.
 */
export function callsSince(after: GatewayCallLog, before: GatewayCallLog): GatewayCallLog {
  const start = before.calls.length + before.dropped;
  const now = after.calls.length + after.dropped;
  if (now < start) return after;
  const calls = after.calls.filter((c) => c.seq >= start);
  // `dropped` then counts only this run's calls past the cap
  return { ...after, calls, dropped: Math.max(0, now - start - calls.length) };
}

/** Joins `log` into `records` in place (see the header for the rule) and says what it found. */
export function joinGatewayCalls(records: CallRecord[], log: GatewayCallLog): GatewayJoin {
  const taken = new Set<GatewayLoggedCall>();
  let unmatchedRecords = 0;
  for (const record of records) {
    if (record.error_code?.startsWith(MALFORMED_CODE_PREFIX) || typeof record.arguments === "string")
      continue;
    const digest = argumentsSha256(record.arguments);
    const match = log.calls.find(
      (c) => !taken.has(c) && c.name === record.name && c.arguments_sha256 === digest,
    );
    if (match === undefined) {
      unmatchedRecords++;
      continue;
    }
    taken.add(match);
    record.latency_ms = match.latency_ms;
    record.error_code =
      match.error_code !== "OK" ? match.error_code : match.is_error ? TOOL_ERROR_CODE : null;
    record.is_error = failed(match);
  }
  return {
    gateway_calls: log.calls.length,
    gateway_calls_unmatched: log.calls.length - taken.size,
    gateway_calls_failed: log.calls.filter(failed).length,
    gateway_calls_dropped: log.dropped,
    tool_calls_unmatched: unmatchedRecords,
  };
}
