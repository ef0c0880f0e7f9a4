// Per-turn credit: each sampled turn's advantage is the trajectory's GRPO advantage plus its turn
// reward return-to-go normalised over the group's samples at the same sampled-turn index. The numbers
// below are worked by hand in the comments.
import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { turnAdvantages, turnReturns } from "./credit-assignment.ts";

/** `turns` like "SOS": S a sampled turn of one token, O an observation turn of one token. */
function trajectory(
  group: string,
  index: number,
  turns: string,
  advantage: number | null,
  turnRewards?: number[],
): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: group,
    groupId: group,
    sampleIndex: index,
    promptIds: [1],
    vocabSize: 100,
  });
  for (const kind of turns) {
    if (kind === "S") b.appendSampled([10], [-0.5]);
    else b.appendObservation([20]);
  }
  b.finish("completed");
  return {
    ...b.toJSON(),
    reward: advantage === null ? null : 0,
    advantage,
    ...(turnRewards === undefined ? {} : { turn_rewards: turnRewards }),
  };
}

// group g: three samples with hand-set GRPO advantages 1, −1, 0
const g = [
  trajectory("g", 0, "SOS", 1, [1, 0, 0.5]), //      returns G = [1.5, 0.5]
  trajectory("g", 1, "SOSOS", -1, [0, 0, 1, 0, 1]), // returns G = [2, 2, 1]
  trajectory("g", 2, "S", 0, [0.5]), //                returns G = [0.5]
];

describe("turnReturns", () => {
  it("sums the turn rewards from each sampled turn on (observation entries included)", () => {
    expect(g.map(turnReturns)).toEqual([[1.5, 0.5], [2, 2, 1], [0.5]]);
    expect(turnReturns(trajectory("x", 0, "S", 0))).toBeUndefined();
  });
});

describe("turnAdvantages", () => {
  it("dr_grpo: A(i) + G − mean of the group's returns at the same sampled-turn index", () => {
    // turn 1: G = 1.5, 2, 0.5 → mean 4/3 → +1/6, +2/3, −5/6
    // turn 2: G = 0.5, 2 (sample 2 has no second turn) → mean 1.25 → −0.75, +0.75
    // turn 3: only sample 1 reached it → 0
    const [a0, a1, a2] = turnAdvantages(g, { credit: "per_turn", mode: "dr_grpo", epsilon: 1e-6 });
    expect(a0).toEqual([expect.closeTo(1 + 1 / 6, 12), 0, expect.closeTo(1 - 0.75, 12)]);
    expect(a1).toEqual([expect.closeTo(-1 + 2 / 3, 12), 0, expect.closeTo(-1 + 0.75, 12), 0, -1]);
    expect(a2).toEqual([expect.closeTo(-5 / 6, 12)]);
  });

  it("grpo: the same deviations divided by the unbiased std of that turn's returns (+ ε)", () => {
    // turn 1: Σ(dev²) = 1/36 + 16/36 + 25/36 = 7/6, std = √(7/6 / 2) = √(7/12) ≈ 0.763763
    // turn 2: Σ(dev²) = 2 × 0.5625 = 1.125, std = √1.125 ≈ 1.060660 → ±0.75 / 1.060660 = ±1/√2
    const std1 = Math.sqrt(7 / 12);
    const [a0, a1, a2] = turnAdvantages(g, { credit: "per_turn", mode: "grpo", epsilon: 0 });
    expect(a0).toEqual([expect.closeTo(1 + 1 / 6 / std1, 12), 0, expect.closeTo(1 - Math.SQRT1_2, 12)]);
    expect(a1).toEqual([
      expect.closeTo(-1 + 2 / 3 / std1, 12),
      0,
      expect.closeTo(-1 + Math.SQRT1_2, 12),
      0,
      -1,
    ]);
    expect(a2).toEqual([expect.closeTo(-5 / 6 / std1, 12)]);
    expect(1 / 6 / std1).toBeCloseTo(0.218218, 6);
  });

  it("outcome: every sampled turn gets the trajectory's advantage, turn rewards or not", () => {
    expect(turnAdvantages(g, { credit: "outcome", mode: "grpo", epsilon: 1e-6 })).toEqual([
      [1, 0, 1],
      [-1, 0, -1, 0, -1],
      [0],
    ]);
  });

  it("is exactly outcome when the turn rewards say nothing: absent, or equal across the group", () => {
    const options = { credit: "per_turn", mode: "grpo", epsilon: 1e-6 } as const;
    const none = [trajectory("h", 0, "SOS", 0.5), trajectory("h", 1, "S", -0.5)];
    expect(turnAdvantages(none, options)).toEqual([[0.5, 0, 0.5], [-0.5]]);
    const equal = [trajectory("e", 0, "SOS", 0.7, [1, 0, 2]), trajectory("e", 1, "SOS", -0.7, [1, 0, 2])];
    expect(turnAdvantages(equal, options)).toEqual([
      [0.7, 0, 0.7],
      [-0.7, 0, -0.7],
    ]);
  });

  it("normalises within each group, and leaves out samples that have no advantage", () => {
    const mixed = [
      ...g,
      // another group with very different returns does not move group g's baselines
      trajectory("k", 0, "S", 0, [100]),
      trajectory("k", 1, "S", 0, [-100]),
      // unscored (reward null → no advantage): no datum, and not in group g's statistics
      trajectory("g", 3, "S", null),
    ];
    const out = turnAdvantages(mixed, { credit: "per_turn", mode: "dr_grpo", epsilon: 1e-6 });
    expect(out.slice(0, 3)).toEqual(
      turnAdvantages(g, { credit: "per_turn", mode: "dr_grpo", epsilon: 1e-6 }),
    );
    expect(out[3]).toEqual([100]);
    expect(out[4]).toEqual([-100]);
    expect(out[5]).toBeNull();
  });
});
