// Per-turn process rewards on real trajectory records: values land on the sampled turn that acted.

import { TrajectoryBuilder } from "@rlfactory/contracts";
import { failed, ok, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { processRewardsSchema, processTurnRewards } from "./process-rewards.ts";

const config = processRewardsSchema.parse({ tool_success: 0.05, tool_error: -0.1, malformed: -0.2 });

describe("process rewards", () => {
  it("align with trajectory.turns: summed per sampled turn, 0 on observation turns", () => {
    const trajectory = trajectoryWith([
      { kind: "sampled", calls: [ok(), failed("tool_error")] }, // 0.05 − 0.1
      { kind: "observation" },
      { kind: "sampled", calls: [failed("TIMEOUT"), failed("unavailable")] }, // infrastructure: 0 by default
      { kind: "observation" },
      { kind: "sampled", calls: [failed("UNKNOWN_TOOL")] }, // the model named a tool that does not exist
      { kind: "observation" },
      { kind: "sampled" }, // malformed (flag below)
      { kind: "observation" },
      { kind: "sampled" },
    ]);
    const input = rewardInput({
      trajectory,
      sampledTexts: ["a", "b", "c", "d", "e"],
      malformedTurns: 1,
      sampledTurnMalformed: [false, false, false, true, false],
    });
    const rewards = processTurnRewards(config, input);
    expect(rewards).toHaveLength(trajectory.turns.length);
    const expected = [-0.05, 0, 0, 0, -0.1, 0, -0.2, 0, 0];
    for (const [i, r] of rewards.entries()) expect(r).toBeCloseTo(expected[i]!, 12);
  });

  it("charges infrastructure failures only when asked", () => {
    const trajectory = trajectoryWith([
      { kind: "sampled", calls: [failed("CIRCUIT_OPEN")] },
      { kind: "observation" },
      { kind: "sampled" },
    ]);
    const c = processRewardsSchema.parse({ tool_infra_failure: -0.01 });
    expect(processTurnRewards(c, rewardInput({ trajectory }))).toEqual([-0.01, 0, 0]);
  });

  it("a non-zero malformed value needs the per-turn flags", () => {
    const input = rewardInput({ malformedTurns: 1 });
    expect(() => processTurnRewards(config, input)).toThrow(
      "process.malformed needs sampledTurnMalformed with one flag per sampled turn (1), got none",
    );
    expect(processTurnRewards(config, { ...input, sampledTurnMalformed: [true] })).toEqual([-0.2]);
  });

  it("a scored call that names no turn is an error, not a guess", () => {
    const b = new TrajectoryBuilder({
      taskId: "t",
      groupId: "g",
      sampleIndex: 0,
      promptIds: [1],
      vocabSize: 10,
    });
    b.appendSampled([2], [-1]);
    b.recordToolCall({ ...ok("sql__query"), arguments: {}, latency_ms: 1 });
    b.finish("completed");
    expect(() => processTurnRewards(config, rewardInput({ trajectory: b.toJSON() }))).toThrow(
      "tool_calls[0] (sql__query) does not name the sampled turn that made it",
    );
  });

  it("rejects unknown keys", () => {
    expect(processRewardsSchema.safeParse({ tool_eror: -0.1 }).success).toBe(false);
  });
});
