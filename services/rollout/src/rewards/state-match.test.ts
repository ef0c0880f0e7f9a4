// state_match and tool_precision on hand-made trajectories: JSON paths, equals / contains / subset
// checks, and the reward errors (no snapshot, truncated snapshot, missing expected state, infra codes).
import { failed, ok, qaTask, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { createRewardFn } from "./reward-config.ts";
import { parseJsonPath } from "./state-match.ts";

const STATE = { cwd: "/home", files: ["a.txt", "notes.txt"], owner: { name: "ada", id: 7 }, "odd key": 1 };

const withState = (state: unknown, extra: Record<string, unknown> = {}) => ({
  ...trajectoryWith([{ kind: "sampled" }]),
  metadata: { environment: { server: "fs", snapshots: [{ user_turn: 0, final: true, state, ...extra }] } },
});
const tools = { call: async () => ({ isError: false, errorCode: "OK", text: "", structured: null }) };

describe("state_match", () => {
  it('parses JSON paths: $.a.b[0], a.b.0, $["odd key"]', () => {
    expect(parseJsonPath("$.a.b[0]")).toEqual(["a", "b", 0]);
    expect(parseJsonPath("a.b.0")).toEqual(["a", "b", "0"]);
    expect(parseJsonPath('$["odd key"].x')).toEqual(["odd key", "x"]);
    expect(parseJsonPath("$")).toEqual([]);
    expect(() => parseJsonPath("$.a[")).toThrow(/malformed JSON path/);
  });

  it("scores the fraction of checks passed, naming the failed paths", async () => {
    const fn = createRewardFn([
      {
        type: "state_match",
        checks: [
          { path: "$.cwd", equals: "/home" },
          { path: "$.files", contains: "notes.txt" },
          { path: "$.owner", contains: { name: "ada" } },
          { path: "owner.name", contains: "ad" },
          { path: '$["odd key"]', equals: 1 },
          { path: "$.files[0]", equals: "b.txt" },
          { path: "$.missing", equals: null },
          { path: "$.files", equals: ["a.txt"] },
        ],
      },
    ]);
    const r = await fn.score(rewardInput({ trajectory: withState(STATE) }), { tools });
    expect(r.components.state_match).toBe(5 / 8);
    expect(r.details.state_match).toBe("5 of 8 checks passed; failed: $.files[0], $.missing, $.files");
  });

  it("expected_from: each leaf of the task's expected subset is one equals check", async () => {
    const fn = createRewardFn([{ type: "state_match", expected_from: "ground_truth.final_state" }]);
    const task = qaTask({
      final_state: { cwd: "/home", owner: { id: 7, name: "bob" }, files: ["a.txt", "notes.txt"] },
    });
    const r = await fn.score(rewardInput({ task, trajectory: withState(STATE) }), { tools });
    expect(r.components.state_match).toBe(3 / 4);
    const none = await fn.score(rewardInput({ task: qaTask("x"), trajectory: withState(STATE) }), { tools });
    expect([none.reward, none.error?.code]).toEqual([null, "NO_EXPECTED_STATE"]);
  });

  it("no snapshot or one stored truncated: reward null with a reward_error, never 0", async () => {
    const fn = createRewardFn([{ type: "state_match", checks: [{ path: "$.cwd", equals: "/home" }] }]);
    const none = await fn.score(rewardInput(), { tools });
    expect([none.reward, none.error?.code]).toEqual([null, "NO_SNAPSHOT"]);
    const big = await fn.score(
      rewardInput({ trajectory: withState(undefined, { truncated: true, bytes: 1e6 }) }),
      {
        tools,
      },
    );
    expect([big.reward, big.error?.code]).toEqual([null, "SNAPSHOT_TRUNCATED"]);
  });

  it("needs checks or expected_from", () => {
    expect(() => createRewardFn([{ type: "state_match" }])).toThrow(/checks.*expected_from/);
  });
});

describe("tool_precision", () => {
  const score = (calls: (ReturnType<typeof ok> | ReturnType<typeof failed>)[]) =>
    createRewardFn([{ type: "tool_precision" }]).score(
      rewardInput({ trajectory: trajectoryWith([{ kind: "sampled", calls }]) }),
      { tools },
    );

  it("valid executed calls ÷ calls made: refused, malformed and tool errors are invalid", async () => {
    const r = await score([
      ok(),
      failed("INVALID_ARGUMENTS"),
      failed("MALFORMED_INVALID_JSON"),
      ok(),
      failed("TOOL_ERROR"),
    ]);
    expect(r.components.tool_precision).toBe(2 / 5);
    expect((await score([])).components.tool_precision).toBe(0);
  });

  it("an infrastructure failure is a reward_error, not a lower precision", async () => {
    const r = await score([ok(), failed("UNAVAILABLE")]);
    expect([r.reward, r.error?.component, r.error?.code]).toEqual([null, "tool_precision", "UNAVAILABLE"]);
  });
});
