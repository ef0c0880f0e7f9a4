// The join of the gateway's call log into an agent's tool calls: which call pairs with which, and what
// a matched call's record becomes. End to end with a real gateway and agent:
// test/rollout/rollout-agent-gateway-calls.e2e.test.ts.
import type { GatewayLoggedCall } from "@rlfactory/clients/gateway-call-log";
import type { ToolCallRecord } from "@rlfactory/contracts";
import { argumentsSha256 } from "@rlfactory/kit";
import { describe, expect, it } from "vitest";
import { callsSince, joinGatewayCalls } from "./gateway-calls.ts";

type CallRecord = Omit<ToolCallRecord, "turn">;

const asked = (name: string, args: Record<string, unknown>): CallRecord => ({
  name,
  arguments: args,
  result: "the text the model saw",
  latency_ms: 900,
  error_code: null,
  is_error: false,
});

let seq = 0;
const served = (
  name: string,
  args: unknown,
  end: Partial<Pick<GatewayLoggedCall, "error_code" | "is_error" | "latency_ms">> = {},
): GatewayLoggedCall => ({
  seq: seq++,
  name,
  server: name.split("__")[0]!,
  call_id: String(seq),
  arguments_sha256: argumentsSha256(args),
  error_code: "OK",
  error_message: "",
  is_error: false,
  latency_ms: 7,
  cache_hit: false,
  attempts: 1,
  started_ms: 0,
  ...end,
});

const log = (calls: GatewayLoggedCall[], dropped = 0) => ({ trajectory: "t", calls, dropped });
const outcome = (r: CallRecord) => [r.name, r.error_code, r.is_error, r.latency_ms];

describe("joinGatewayCalls", () => {
  it("records a gateway error as its code, a tool's isError as TOOL_ERROR, and the gateway's latency", () => {
    const records = [
      asked("s__sleep", { ms: 60_000 }),
      asked("s__fail", { message: "no" }),
      asked("s__echo", { value: 1 }),
    ];
    const join = joinGatewayCalls(
      records,
      log([
        served("s__sleep", { ms: 60_000 }, { error_code: "TIMEOUT", latency_ms: 300 }),
        served("s__fail", { message: "no" }, { is_error: true, latency_ms: 4 }),
        served("s__echo", { value: 1 }),
      ]),
    );
    expect(records.map(outcome)).toEqual([
      ["s__sleep", "TIMEOUT", true, 300],
      ["s__fail", "TOOL_ERROR", true, 4],
      ["s__echo", null, false, 7],
    ]);
    // what the model was shown stays
    expect(new Set(records.map((r) => r.result))).toEqual(new Set(["the text the model saw"]));
    expect(join).toEqual({
      gateway_calls: 3,
      gateway_calls_unmatched: 0,
      gateway_calls_failed: 2,
      gateway_calls_dropped: 0,
      tool_calls_unmatched: 0,
    });
  });

  it("pairs by name and arguments whatever their key order, and parallel calls that finished out of order", () => {
    const records = [
      asked("s__echo", { a: 1, b: 2 }),
      asked("s__echo", { a: 2 }),
      asked("s__sleep", { ms: 1 }),
    ];
    joinGatewayCalls(
      records,
      log([
        served("s__sleep", { ms: 1 }, { latency_ms: 1 }),
        served("s__echo", { a: 2 }, { error_code: "UNAVAILABLE", latency_ms: 2 }),
        served("s__echo", { b: 2, a: 1 }, { latency_ms: 3 }),
      ]),
    );
    expect(records.map(outcome)).toEqual([
      ["s__echo", null, false, 3],
      ["s__echo", "UNAVAILABLE", true, 2],
      ["s__sleep", null, false, 1],
    ]);
  });

  it("gives a repeated call the gateway calls in order; an agent's retry and its own calls stay unmatched", () => {
    const records = [asked("s__echo", { v: 1 }), asked("s__echo", { v: 1 })];
    const join = joinGatewayCalls(
      records,
      log(
        [
          served("s__echo", { v: 1 }, { error_code: "TIMEOUT", latency_ms: 1 }),
          served("s__echo", { v: 1 }, { latency_ms: 2 }),
          served("s__echo", { v: 1 }, { latency_ms: 3 }), // retried by the agent: no third model call
          served("s__pid", {}, { error_code: "CIRCUIT_OPEN" }), // the agent's own call
        ],
        2,
      ),
    );
    expect(records.map(outcome)).toEqual([
      ["s__echo", "TIMEOUT", true, 1],
      ["s__echo", null, false, 2],
    ]);
    expect(join).toEqual({
      gateway_calls: 4,
      gateway_calls_unmatched: 2,
      gateway_calls_failed: 2,
      gateway_calls_dropped: 2,
      tool_calls_unmatched: 0,
    });
  });

  it("leaves a call with no gateway counterpart, and malformed attempts, as the conversation has them", () => {
    const malformed: CallRecord = {
      name: "",
      arguments: "<tool_call>{oops",
      result: "not JSON",
      latency_ms: 0,
      error_code: "MALFORMED_INVALID_JSON",
      is_error: true,
    };
    const records = [asked("s__echo", { v: "other" }), malformed, asked("local_tool", {})];
    const join = joinGatewayCalls(records, log([served("s__echo", { v: 1 }, { error_code: "TIMEOUT" })]));
    expect(records.map(outcome)).toEqual([
      ["s__echo", null, false, 900],
      ["", "MALFORMED_INVALID_JSON", true, 0],
      ["local_tool", null, false, 900],
    ]);
    expect([join.tool_calls_unmatched, join.gateway_calls_unmatched]).toEqual([2, 1]);
  });
});

describe("callsSince", () => {
  const numbered = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ ...served("s__echo", { i }), seq: from + i }));

  it("leaves out the calls an earlier run logged under the same trajectory id", () => {
    const before = log(numbered(2));
    const after = log(numbered(5));
    expect(callsSince(after, before).calls.map((c) => c.seq)).toEqual([2, 3, 4]);
  });

  it("past the gateway's cap, counts only this run's calls as dropped", () => {
    // the gateway kept 3 calls; 2 more were dropped before the run, 4 during it
    expect(callsSince(log(numbered(3), 6), log(numbered(3), 2))).toMatchObject({ calls: [], dropped: 4 });
  });

  it("takes every call when the gateway forgot the trajectory in between", () => {
    expect(callsSince(log(numbered(1)), log(numbered(4))).calls).toHaveLength(1);
  });
});
