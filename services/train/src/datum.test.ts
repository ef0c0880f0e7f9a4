// Trajectory → Datum: the shift by one, weights from the loss mask (prompt and observations 0), the
// rollout logprobs, the advantage on sampled tokens only; and which trajectories are skipped.

import { type Trajectory, TrajectoryBuilder } from "@rlfactory/contracts";
import { describe, expect, it } from "vitest";
import { buildDatums, skipReason, trajectoryToDatum } from "./datum.ts";
import { datumSchema } from "./tinker-schema.ts";

/** prompt [1 2 3] · sampled [10 11] · observation [20 21] · sampled [12] */
function trajectory(over: Partial<Trajectory> = {}): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t",
    groupId: "g",
    sampleIndex: 0,
    promptIds: [1, 2, 3],
    vocabSize: 100,
  });
  b.appendSampled([10, 11], [-0.1, -0.2]);
  b.appendObservation([20, 21]);
  b.appendSampled([12], [-0.3]);
  b.finish("completed");
  return { ...b.toJSON(), reward: 1, advantage: 0.5, ...over };
}

describe("trajectoryToDatum", () => {
  it("predicts each next id: input = sequence[:-1], targets = sequence[1:]", () => {
    const d = trajectoryToDatum(trajectory());
    expect(d.model_input.chunks).toEqual([{ type: "encoded_text", tokens: [1, 2, 3, 10, 11, 20, 21] }]);
    expect(d.loss_fn_inputs.target_tokens).toEqual({
      data: [2, 3, 10, 11, 20, 21, 12],
      dtype: "int64",
      shape: [7],
    });
  });

  it("weights the sampled targets only: 0 over the prompt and the tool observation", () => {
    const d = trajectoryToDatum(trajectory());
    expect(d.loss_fn_inputs.weights.data).toEqual([0, 0, 1, 1, 0, 0, 1]);
    expect(d.loss_fn_inputs.logprobs?.data).toEqual([0, 0, -0.1, -0.2, 0, 0, -0.3]);
    expect(d.loss_fn_inputs.advantages?.data).toEqual([0, 0, 0.5, 0.5, 0, 0, 0.5]);
  });

  it("produces a datum the pinned request schema accepts", () => {
    expect(datumSchema.safeParse(trajectoryToDatum(trajectory())).success).toBe(true);
  });

  it("refuses a trajectory whose arrays do not align, or that has no advantage", () => {
    expect(() => trajectoryToDatum(trajectory({ loss_mask: [1, 1, 0] }))).toThrow(
      /5 response ids, 3 mask values/,
    );
    expect(() => trajectoryToDatum(trajectory({ advantage: null }))).toThrow(/no advantage/);
  });
});

describe("buildDatums with per-turn credit", () => {
  it("puts each sampled turn's own advantage on its tokens, 0 on the observation", () => {
    // one group of two: turn rewards [1, 0, 0] and [0, 0, 1] → returns [1, 0] and [1, 1]
    // dr_grpo, per sampled-turn index: turn 1 (1, 1) → 0, 0; turn 2 (0, 1) → −0.5, +0.5
    const a = trajectory({ advantage: 0.5, turn_rewards: [1, 0, 0] });
    const b = trajectory({ sample_index: 1, advantage: -0.5, turn_rewards: [0, 0, 1] });
    const perTurn = buildDatums([a, b], { credit: "per_turn", mode: "dr_grpo", epsilon: 1e-6 });
    expect(perTurn.datums.map((d) => d.loss_fn_inputs.advantages?.data)).toEqual([
      [0, 0, 0.5, 0.5, 0, 0, 0],
      [0, 0, -0.5, -0.5, 0, 0, 0],
    ]);
    // outcome (the default): the trajectory's advantage on every sampled token
    expect(buildDatums([a, b]).datums.map((d) => d.loss_fn_inputs.advantages?.data)).toEqual([
      [0, 0, 0.5, 0.5, 0, 0, 0.5],
      [0, 0, -0.5, -0.5, 0, 0, -0.5],
    ]);
    for (const d of perTurn.datums) expect(datumSchema.safeParse(d).success).toBe(true);
  });

  it("refuses turn advantages that do not match the turns", () => {
    expect(() => trajectoryToDatum(trajectory(), [1, 0])).toThrow(/2 turn advantages for 3 turns/);
  });
});

describe("buildDatums", () => {
  it("skips what cannot train and counts why", () => {
    const noSampled = new TrajectoryBuilder({
      taskId: "t",
      groupId: "g",
      sampleIndex: 5,
      promptIds: [1],
      vocabSize: 100,
    });
    noSampled.finish("truncated");
    const batch = buildDatums([
      trajectory(),
      trajectory({ status: "aborted" }),
      trajectory({ status: "failed" }),
      trajectory({ reward: null, advantage: null }),
      { ...noSampled.toJSON(), advantage: 0 },
      trajectory({ status: "truncated", advantage: -1 }),
    ]);
    expect(batch.datums).toHaveLength(2);
    expect(batch.used.map((t) => t.advantage)).toEqual([0.5, -1]);
    expect(batch.skipped).toEqual({ aborted: 1, failed: 1, no_advantage: 1, no_sampled_tokens: 1 });
    expect(batch.tokens).toEqual({ input: 14, weighted: 6 });
    expect(skipReason(trajectory({ advantage: 0 }))).toBeNull(); // a zero advantage still trains (weights)
  });
});
