import type { Trajectory } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { barsFromRecord } from "./tool-call-timeline.ts";
import { environmentView, traceLink } from "./trajectory-detail.ts";

const base = {
  task_id: "t",
  group_id: "t#0",
  tool_calls: [],
  metadata: {},
} as unknown as Trajectory;

describe("the Trajectory view's detail", () => {
  it("diffs each stored snapshot against the one before, and only where both are stored whole", () => {
    const t = {
      ...base,
      metadata: {
        environment: {
          server: "kv",
          snapshots: [
            { user_turn: 0, state: { a: "1" } },
            { user_turn: 1, state: { a: "1", b: "2" } },
            {
              user_turn: 2,
              diff: [{ op: "remove", path: "/a" }],
              base: { digest: "sha256:x", bytes: 9 },
              bytes: 9,
            },
            { user_turn: 3, final: true, state: { b: "3" } },
          ],
        },
      },
    } as unknown as Trajectory;
    const view = environmentView(t);
    expect(view?.server).toBe("kv");
    expect(view?.snapshots.map((s) => [s.user_turn, s.form, s.final, s.diff_from_previous])).toEqual([
      [0, "state", false, null],
      [1, "state", false, [{ op: "add", path: "/b", value: "2" }]],
      [2, "diff", false, null],
      [3, "state", true, null],
    ]);
    expect(view?.snapshots[2]?.diff_from_initial).toEqual([{ op: "remove", path: "/a" }]);
    expect(environmentView(base)).toBeNull();
  });

  it("links the trace to Jaeger only with --jaeger and a well-formed trace id", () => {
    const id = "0af7651916cd43dd8448eb211c80319c";
    const traced = { ...base, metadata: { trace_id: id } } as unknown as Trajectory;
    expect(traceLink(traced, "r", 2, "http://j:16686/")).toEqual({
      trace_id: id,
      url: `http://j:16686/trace/${id}`,
    });
    expect(traceLink(traced, "r", 2, undefined).url).toBe("/runs/r/trajectories/2/trace");
    const odd = { ...base, metadata: { trace_id: "../x" } } as unknown as Trajectory;
    expect(traceLink(odd, "r", 2, "http://j").trace_id).toBeNull();
  });

  it("lays the record's calls out turn by turn: a turn's calls start together, the next turn after the longest", () => {
    const call = (name: string, latency_ms: number, turn?: number) => ({
      name,
      arguments: {},
      result: "",
      latency_ms,
      error_code: null,
      is_error: false,
      ...(turn === undefined ? {} : { turn }),
    });
    const t = { ...base, tool_calls: [call("a", 10, 0), call("b", 30, 0), call("c", 5, 2), call("d", 1)] };
    expect(
      barsFromRecord(t as unknown as Trajectory).map((b) => [b.name, b.start_ms, b.duration_ms]),
    ).toEqual([
      ["a", 0, 10],
      ["b", 0, 30],
      ["c", 30, 5],
      ["d", 35, 1],
    ]);
  });
});
