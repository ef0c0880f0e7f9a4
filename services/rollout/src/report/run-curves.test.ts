import { fixtureTrajectories } from "@rlfactory/test-support/report-fixtures";
import { describe, expect, it } from "vitest";
import { turnRewardMeans } from "../turn-rewards.ts";
import { RunCurveTally, runCurves } from "./run-curves.ts";

describe("runCurves", () => {
  // The hand-counted fixture (report-fixtures.ts): groups A (a0–a3), B (b0–b2), C (c0), D (d0, d1).
  const trajectories = fixtureTrajectories();

  it("gives one point per group in order of first appearance, with its mean reward and success rate", () => {
    const { points } = runCurves(trajectories);
    expect(points).toEqual([
      // A: rewards 1, 1, 1, 1; exact_match 1, 1, 1, 0.
      { batch: 0, trajectories: 4, scored: 4, reward_mean: 1, success_rate: 0.75 },
      // B: rewards 0, 0.5, null (b2 unscored).
      { batch: 1, trajectories: 3, scored: 2, reward_mean: 0.25, success_rate: 0 },
      { batch: 2, trajectories: 1, scored: 1, reward_mean: 0, success_rate: 0 },
      { batch: 3, trajectories: 2, scored: 2, reward_mean: 0, success_rate: 0 },
    ]);
  });

  it("counts statuses and averages each reward component over the trajectories that carry it", () => {
    const curves = runCurves(trajectories);
    expect(curves.trajectories).toBe(10);
    expect(curves.status_counts).toEqual({ completed: 6, truncated: 2, aborted: 1, failed: 1 });
    // exact_match on a0–a3, b0, b1, c0, d0, d1: 3 of 9; format on a0–a3, b0: (1 + 1 + 0.5 + 1 + 1) / 5.
    expect(curves.reward_components.exact_match).toBeCloseTo(3 / 9, 12);
    expect(curves.reward_components.format).toBeCloseTo(0.9, 12);
    expect(curves.turn_reward_mean).toBeNull();
  });

  it("keeps the mean turn reward per sampled turn as turnRewardMeans computes it, group by group", () => {
    const [a, b] = trajectories;
    if (!a || !b) throw new Error("fixture");
    const withTurns = [
      { ...a, turn_rewards: [1, 0, 0.5] },
      { ...b, turn_rewards: [0, 0, -0.25, 0, 1] },
    ];
    const tally = new RunCurveTally();
    tally.addGroup([withTurns[0]!]);
    tally.addGroup([withTurns[1]!]);
    expect(tally.curves().turn_reward_mean).toEqual(turnRewardMeans(withTurns)?.map((m) => m.mean));
    expect(tally.curves().turn_reward_mean).toEqual([0.5, 0.125, 1]);
  });
});
