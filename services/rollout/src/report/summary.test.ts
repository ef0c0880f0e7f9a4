import { buildTrajectory, fixtureTrajectories } from "@rlfactory/test-support/report-fixtures";
import { describe, expect, it } from "vitest";
import { rolloutSummarySchema, summarizeRollout } from "./summary.ts";

// Every expectation below is counted by hand from the table in test-fixtures.ts.
describe("summarizeRollout", () => {
  const trajectories = fixtureTrajectories();
  const s = summarizeRollout(trajectories, {
    wallMs: 2000,
    startedAt: "2025-01-02T03:04:05Z",
    config: { model: "qwen3", n: 4 },
  });

  it("counts statuses and the top status reasons", () => {
    expect(s.trajectories).toBe(10);
    expect(s.status).toEqual({ completed: 6, truncated: 2, aborted: 1, failed: 1 });
    expect(s.status_reasons).toEqual([
      { status: "truncated", reason: "max_turns", count: 2 },
      { status: "aborted", reason: "deadline", count: 1 },
      { status: "failed", reason: "sampler_error", count: 1 },
    ]);
    expect(summarizeRollout(trajectories, { wallMs: 1 }, { topReasons: 1 }).status_reasons).toHaveLength(1);
  });

  it("reward statistics over the 9 scored trajectories (population std) and reward errors", () => {
    expect(s.reward.scored).toBe(9);
    expect(s.reward.unscored).toBe(1);
    expect(s.reward.mean).toBeCloseTo(4.5 / 9, 12);
    // Four 1s and four 0s each 0.5 from the mean, one 0.5 at it: variance 8 · 0.25 / 9.
    expect(s.reward.std).toBeCloseTo(Math.sqrt(2 / 9), 12);
    expect([s.reward.min, s.reward.max]).toEqual([0, 1]);
    expect(s.reward_errors).toEqual({
      total: 1,
      by_code: [{ component: "judge", code: "TIMEOUT", count: 1 }],
    });
  });

  it("means each reward component over the trajectories carrying it; EM is exact_match", () => {
    expect(s.reward_components.exact_match).toEqual({ mean: 3 / 9, count: 9 });
    expect(s.reward_components.format).toEqual({ mean: 4.5 / 5, count: 5 });
    expect(s.reward_components.f1!.mean).toBeCloseTo(0.35, 12);
    expect(s.reward_components.f1!.count).toBe(2);
    expect(s.exact_match).toBeCloseTo(1 / 3, 12);
  });

  it("falls back to the `em` component for exact match, and null without either", () => {
    const em = [1, 0, 0, 0].map((v, i) =>
      buildTrajectory({
        group: "g",
        index: i,
        prompt: 2,
        turns: ["S1"],
        reward: v,
        components: { em: v },
        status: "completed",
      }),
    );
    expect(summarizeRollout(em, { wallMs: 1 }).exact_match).toBe(0.25);
    const none = [buildTrajectory({ group: "g", prompt: 2, turns: ["S1"], reward: 1, status: "completed" })];
    expect(summarizeRollout(none, { wallMs: 1 }).exact_match).toBeNull();
  });

  it("sampled turns per trajectory: mean, nearest-rank p50, max", () => {
    // Sorted turn counts: 1 1 1 1 1 2 2 2 3 4 → p50 is rank 5.
    expect(s.turns).toEqual({ mean: 1.8, p50: 1, max: 4 });
  });

  it("turn rewards: the mean per sampled turn over the trajectories that reached it (null without any)", () => {
    expect(s.turn_rewards).toBeNull();
    const withTurnRewards = (turns: string[], values: number[]) => ({
      ...buildTrajectory({ group: "g", prompt: 2, turns, reward: 1, status: "completed" }),
      turn_rewards: values,
    });
    const t = summarizeRollout(
      [
        withTurnRewards(["S1", "O1", "S1"], [4 / 3, 0, 1]),
        withTurnRewards(["S1", "O1", "S1", "O1", "S1"], [1, 0, 1, 0, 0.5]),
        buildTrajectory({ group: "h", prompt: 2, turns: ["S1"], reward: 0, status: "completed" }),
      ],
      { wallMs: 1 },
    );
    expect(t.turn_rewards).toEqual([
      { turn: 1, mean: expect.closeTo(7 / 6, 12), count: 2 },
      { turn: 2, mean: 1, count: 2 },
      { turn: 3, mean: 0.5, count: 1 },
    ]);
  });

  it("tool calls by tool and by error code, with exact latency percentiles", () => {
    expect(s.tool_calls.total).toBe(8);
    expect(s.tool_calls.errors).toBe(3);
    expect(s.tool_calls.per_trajectory_mean).toBe(0.8);
    expect(s.tool_calls.by_tool).toEqual([
      // search latencies sorted: 0.4 5 7 10 20 300 → p50 rank 3, p95 rank ⌈5.7⌉ = 6.
      { name: "search", count: 6, errors: 2, latency_ms: { p50: 7, p95: 300, p99: 300, max: 300 } },
      { name: "fetch", count: 2, errors: 1, latency_ms: { p50: 40, p95: 1500, p99: 1500, max: 1500 } },
    ]);
    expect(s.tool_calls.by_error_code).toEqual([
      { code: "TIMEOUT", count: 2 },
      { code: "UNAVAILABLE", count: 1 },
    ]);
  });

  it("tokens by loss mask and throughput over wall time", () => {
    expect(s.tokens).toEqual({ prompt: 55, sampled: 41, observation: 14 });
    expect(s.throughput).toEqual({ trajectories_per_s: 5, sampled_tokens_per_s: 20.5 });
  });

  it("timings per phase over the trajectories that carry them", () => {
    // total_ms is 100, 200, …, 1000.
    expect(s.timings_ms.total_ms).toEqual({
      mean: 550,
      count: 10,
      p50: 500,
      p95: 1000,
      p99: 1000,
      max: 1000,
    });
    expect(s.timings_ms.tool_ms).toEqual({ mean: 320, count: 1, p50: 320, p95: 320, p99: 320, max: 320 });
  });

  it("GRPO groups: zero-advantage groups are fully scored groups with equal rewards", () => {
    expect(s.groups).toEqual({
      groups: 4,
      multi_sample: 3,
      size: { min: 1, mean: 2.5, max: 4 },
      zero_advantage: 2,
      zero_advantage_fraction: 2 / 3,
      zero_advantage_by_reward: [
        { reward: 0, groups: 1 },
        { reward: 1, groups: 1 },
      ],
      with_unscored: 1,
    });
  });

  it("has no group section when no group_id repeats", () => {
    const single = ["x", "y"].map((g) =>
      buildTrajectory({ group: g, prompt: 2, turns: ["S1"], reward: 1, status: "completed" }),
    );
    expect(summarizeRollout(single, { wallMs: 10 }).groups).toBeNull();
  });

  it("is plain JSON that round-trips through its schema, and carries the run's metadata", () => {
    const back = rolloutSummarySchema.parse(JSON.parse(JSON.stringify(s)));
    expect(back).toEqual(s);
    expect(s.started_at).toBe("2025-01-02T03:04:05Z");
    expect(s.config).toEqual({ model: "qwen3", n: 4 });
    expect(s.percentile_method).toBe("nearest-rank");
    // built-in trajectories carry no metadata.capture: no capture section (agent runs: capture-server.test.ts)
    expect(s.capture).toBeUndefined();
  });

  it("summarises an empty rollout with nulls, and rejects a bad wall time", () => {
    const empty = summarizeRollout([], { wallMs: 0 });
    expect(empty.trajectories).toBe(0);
    expect(empty.reward).toEqual({ scored: 0, unscored: 0, mean: null, std: null, min: null, max: null });
    expect(empty.turns).toBeNull();
    expect(empty.throughput).toEqual({ trajectories_per_s: null, sampled_tokens_per_s: null });
    expect(() => summarizeRollout([], { wallMs: -1 })).toThrow(/bad run[\s\S]*wallMs/);
  });
});
