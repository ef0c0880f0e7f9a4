// Test-only helpers for the reward tests: real Task and Trajectory records (built with
// TrajectoryBuilder, so every invariant holds) with the turns and tool calls a test needs.

import type { RewardInput } from "@rlfactory/rollout";
import {
  type Task,
  type ToolCallRecord,
  type Trajectory,
  TrajectoryBuilder,
  type TrajectoryStatus,
  taskSchema,
} from "@rlfactory/rollout";

export function qaTask(groundTruth: unknown, extra: Record<string, unknown> = {}, id = "t1"): Task {
  return taskSchema.parse({
    id,
    data_source: "test",
    prompt: [{ role: "user", content: "Who wrote Hamlet?" }],
    ground_truth: groundTruth,
    extra_info: extra,
  });
}

export type TurnSpec =
  | { kind: "sampled"; calls?: Omit<ToolCallRecord, "turn" | "latency_ms" | "arguments">[] }
  | { kind: "observation" };

/** A finished trajectory with the given turns (2 tokens each) and tool calls attached to their turns. */
export function trajectoryWith(turns: TurnSpec[], status: TrajectoryStatus = "completed"): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t1",
    groupId: "g1",
    sampleIndex: 0,
    promptIds: [1, 2],
    vocabSize: 100,
  });
  for (const turn of turns) {
    if (turn.kind === "observation") {
      b.appendObservation([7, 8]);
      continue;
    }
    const index = b.appendSampled([3, 4], [-0.5, -0.25]);
    for (const call of turn.calls ?? [])
      b.recordToolCall({ ...call, arguments: {}, latency_ms: 1, turn: index });
  }
  b.finish(status);
  return b.toJSON();
}

export const ok = (name = "search__search") => ({ name, result: "ok", error_code: null, is_error: false });
export const failed = (code: string, name = "search__search") => ({
  name,
  result: code,
  error_code: code,
  is_error: true,
});

/** A RewardInput for a one-turn answer (override any field). */
export function rewardInput(overrides: Partial<RewardInput> = {}): RewardInput {
  return {
    task: qaTask(["William Shakespeare"]),
    trajectory: trajectoryWith([{ kind: "sampled" }]),
    sampledTexts: ["<answer>Shakespeare</answer>"],
    answer: "Shakespeare",
    malformedTurns: 0,
    ...overrides,
  };
}
