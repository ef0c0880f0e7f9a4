// The call log's bounds and what it keeps of a call, on a clock the test moves (no waiting). The log
// read over HTTP from a real gateway, through `/mcp` and gRPC: test/gateway/call-log.e2e.test.ts.
import { argumentsSha256 } from "@rlfactory/kit";
import { describe, expect, it } from "vitest";
import { CallLog, type CallLogLimits } from "./call-log.ts";
import { GatewayError } from "./errors.ts";
import type { CallOutcome, CallRequest } from "./invoker.ts";

const request = (trajectoryId: string, args: unknown = {}): CallRequest => ({
  name: "s__echo",
  argumentsJson: "",
  argumentsValue: args,
  deadlineMs: 0,
  trajectoryId,
  bypassCache: false,
  callId: "c",
});

const outcome = (extra: Partial<CallOutcome> = {}): CallOutcome => ({
  name: "s__echo",
  callId: "c",
  server: "s",
  latencyMs: 5,
  cacheHit: false,
  coalesced: false,
  attempts: 1,
  output: { content: [], structuredContentJson: "", isError: false, truncated: false },
  ...extra,
});

function logWith(limits: Partial<CallLogLimits> = {}) {
  let now = 1_000_000;
  const log = new CallLog(
    { maxCallsPerTrajectory: 100, maxTrajectories: 100, ttlMs: 60_000, ...limits },
    () => now,
  );
  const advance = (ms: number) => {
    now += ms;
  };
  return { log, advance };
}

describe("CallLog", () => {
  it("keeps each call's code, tool error, latency, cache hit and start, in order, per trajectory", () => {
    const { log, advance } = logWith();
    log.record(outcome(), request("t1", { b: 1, a: [1, "x"] }));
    advance(100);
    log.record(
      outcome({ error: new GatewayError("TIMEOUT", "s__echo: deadline of 50 ms exceeded"), latencyMs: 50 }),
      request("t1"),
    );
    log.record(outcome(), request("t2"));
    log.record(
      outcome({
        output: { content: [], structuredContentJson: "", isError: true, truncated: false },
        cacheHit: true,
      }),
      request("t1"),
    );
    const { calls, dropped } = log.list("t1");
    expect(dropped).toBe(0);
    expect(calls.map((c) => [c.seq, c.error_code, c.is_error, c.cache_hit, c.latency_ms])).toEqual([
      [0, "OK", false, false, 5],
      [1, "TIMEOUT", false, false, 50],
      [2, "OK", true, true, 5],
    ]);
    expect(calls[1]!.error_message).toBe("s__echo: deadline of 50 ms exceeded");
    expect(calls[1]!.started_ms).toBe(1_000_100 - 50);
    // the arguments as a digest that ignores key order, never as values
    expect(calls[0]!.arguments_sha256).toBe(argumentsSha256({ a: [1, "x"], b: 1 }));
    expect(JSON.stringify(calls)).not.toContain('"x"');
    expect(log.list("t2").calls).toHaveLength(1);
  });

  it("digests gRPC's JSON text as the value it encodes, and skips calls without a trajectory", () => {
    const { log } = logWith();
    log.record(outcome(), { ...request("t1"), argumentsValue: undefined, argumentsJson: '{"b":2,"a":1}' });
    log.record(outcome(), { ...request("t1"), argumentsValue: undefined, argumentsJson: "" });
    log.record(outcome(), request(""));
    expect(log.list("t1").calls.map((c) => c.arguments_sha256)).toEqual([
      argumentsSha256({ a: 1, b: 2 }),
      argumentsSha256({}),
    ]);
    expect(log.trajectories).toBe(1);
  });

  it("logs a call whose arguments nest too deep to hash, with an empty digest", () => {
    const { log } = logWith();
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    log.record(outcome({ error: new GatewayError("INVALID_ARGUMENTS", "too deep") }), request("t1", deep));
    expect(log.list("t1").calls.map((c) => [c.error_code, c.arguments_sha256])).toEqual([
      ["INVALID_ARGUMENTS", ""],
    ]);
  });

  it("keeps the first max_calls_per_trajectory calls and counts the rest as dropped", () => {
    const { log } = logWith({ maxCallsPerTrajectory: 2 });
    for (let i = 0; i < 5; i++) log.record(outcome({ callId: `c${i}` }), request("t1"));
    const { calls, dropped } = log.list("t1");
    expect(calls.map((c) => [c.seq, c.call_id])).toEqual([
      [0, "c0"],
      [1, "c1"],
    ]);
    expect(dropped).toBe(3);
  });

  it("past max_trajectories forgets the trajectory least recently called", () => {
    const { log } = logWith({ maxTrajectories: 2 });
    log.record(outcome(), request("t1"));
    log.record(outcome(), request("t2"));
    log.record(outcome(), request("t1")); // t1 is now the more recent
    log.record(outcome(), request("t3"));
    expect(log.trajectories).toBe(2);
    expect(log.list("t2").calls).toEqual([]);
    expect(log.list("t1").calls).toHaveLength(2);
    expect(log.list("t3").calls).toHaveLength(1);
  });

  it("forgets a trajectory not called for ttl_ms; a call within it keeps the trajectory", () => {
    const { log, advance } = logWith({ ttlMs: 1_000 });
    log.record(outcome(), request("t1"));
    log.record(outcome(), request("t2"));
    advance(999);
    log.record(outcome(), request("t2"));
    advance(1);
    expect(log.list("t1").calls).toEqual([]);
    expect(log.list("t2").calls).toHaveLength(2);
    advance(998);
    expect(log.list("t2").calls).toHaveLength(2);
    advance(1);
    expect(log.list("t2")).toEqual({ trajectory: "t2", calls: [], dropped: 0 });
    expect(log.trajectories).toBe(0);
  });

  it("max_trajectories 0 turns the log off", () => {
    const { log } = logWith({ maxTrajectories: 0 });
    log.record(outcome(), request("t1"));
    expect(log.trajectories).toBe(0);
  });
});
