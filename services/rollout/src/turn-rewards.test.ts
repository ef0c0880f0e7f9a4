// The mean turn reward per sampled-turn index: what summary.json, the rollout service's group stats and
// rlf train's metrics report.

import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { sampledTurnRewards, turnRewardMeans } from "./turn-rewards.ts";

/** `turns` like "SOS": S a sampled turn, O an observation turn, one token each. */
function trajectory(turns: string, turnRewards?: number[]): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t",
    groupId: "g",
    sampleIndex: 0,
    promptIds: [1],
    vocabSize: 10,
  });
  for (const kind of turns) {
    if (kind === "S") b.appendSampled([2], [-0.5]);
    else b.appendObservation([3]);
  }
  b.finish("completed");
  return { ...b.toJSON(), ...(turnRewards === undefined ? {} : { turn_rewards: turnRewards }) };
}

describe("turn rewards by sampled turn", () => {
  it("reads the entries of the sampled turns, in order", () => {
    expect(sampledTurnRewards(trajectory("SOSOS", [0.5, 0, -1, 0, 2]))).toEqual([0.5, -1, 2]);
    expect(sampledTurnRewards(trajectory("SOS"))).toBeUndefined();
  });

  it("averages the K-th sampled turn over the trajectories that reached it; null when none carries any", () => {
    const means = turnRewardMeans([
      trajectory("SOS", [1, 0, 0.5]),
      trajectory("SOSOS", [0, 0, 1.5, 0, 2]),
      trajectory("SOS"), // no turn_rewards: not counted
    ]);
    expect(means).toEqual([
      { mean: 0.5, count: 2 }, // (1 + 0) / 2
      { mean: 1, count: 2 }, // (0.5 + 1.5) / 2
      { mean: 2, count: 1 },
    ]);
    expect(turnRewardMeans([trajectory("S")])).toBeNull();
    expect(turnRewardMeans([])).toBeNull();
  });
});
