// Test fixtures for the report: trajectories built with the real TrajectoryBuilder from a short spec
// (turn lengths, tool calls, reward), over a small vocabulary. Used by the report's *.test.ts only.
import { type RewardError, type Trajectory, TrajectoryBuilder, trajectorySchema } from "@rlfactory/rollout";

export const VOCAB = 1000;

export interface TrajectorySpec {
  task?: string;
  group: string;
  index?: number;
  /** Prompt length in tokens. */
  prompt: number;
  /** Response turns in order: `S<n>` sampled, `O<n>` observation, e.g. ["S3", "O2", "S4"]. */
  turns: readonly string[];
  /** Tool calls, each made by the sampled turn before the next observation. */
  calls?: readonly { name: string; latency: number; error?: string; result?: string }[];
  reward?: number | null;
  components?: Record<string, number>;
  rewardError?: RewardError;
  status: Trajectory["status"];
  reason?: string;
  timings?: Record<string, number>;
}

export function buildTrajectory(spec: TrajectorySpec): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: spec.task ?? `${spec.group}-${spec.index ?? 0}`,
    groupId: spec.group,
    sampleIndex: spec.index ?? 0,
    promptIds: Array.from({ length: spec.prompt }, (_, i) => (i % (VOCAB - 1)) + 1),
    vocabSize: VOCAB,
  });
  let lastSampled = 0;
  for (const t of spec.turns) {
    const n = Number(t.slice(1));
    const ids = Array.from({ length: n }, (_, i) => 100 + i);
    if (t[0] === "S")
      lastSampled = b.appendSampled(
        ids,
        ids.map(() => -0.25),
      );
    else b.appendObservation(ids);
  }
  for (const c of spec.calls ?? []) {
    b.recordToolCall({
      name: c.name,
      arguments: { query: `q-${c.name}` },
      result: c.result ?? (c.error ? `error: ${c.error}` : "ok result"),
      latency_ms: c.latency,
      error_code: c.error ?? null,
      is_error: c.error !== undefined,
      turn: lastSampled,
    });
  }
  if (spec.reward !== undefined && spec.reward !== null) b.setReward(spec.reward, spec.components ?? {});
  for (const [k, ms] of Object.entries(spec.timings ?? {})) b.addTiming(k, ms);
  b.finish(spec.status, spec.reason ?? null);
  const record = b.toJSON();
  return spec.rewardError ? trajectorySchema.parse({ ...record, reward_error: spec.rewardError }) : record;
}

export const HOSTILE_TASK_ID = "<script>alert(1)</script>";

/**
 * Ten trajectories in four groups with hand-countable numbers (the expectations in the tests are
 * worked out by hand from this table, not by the code under test):
 *
 * | id | group | status    | sampled turns | sampled/obs tokens | reward | tool calls (ms, code)                  |
 * |----|-------|-----------|---------------|--------------------|--------|----------------------------------------|
 * | a0 | A     | completed | 2             | 7 / 2              | 1      | search 10                              |
 * | a1 | A     | completed | 3             | 5 / 6              | 1      | search 20, search 300 TIMEOUT          |
 * | a2 | A     | completed | 1             | 4 / 0              | 1      |                                        |
 * | a3 | A     | truncated | 4             | 4 / 3              | 1      | search 5, search 7, fetch 1500 UNAVAIL |
 * | b0 | B     | completed | 1             | 6 / 0              | 0      |                                        |
 * | b1 | B     | aborted   | 2             | 4 / 2              | 0.5    | fetch 40                               |
 * | b2 | B     | failed    | 1             | 1 / 0              | null   | search 0.4 TIMEOUT (judge TIMEOUT)     |
 * | c0 | C     | truncated | 2             | 4 / 1              | 0      |                                        |
 * | d0 | D     | completed | 1             | 3 / 0              | 0      |                                        |
 * | d1 | D     | completed | 1             | 3 / 0              | 0      |                                        |
 */
export function fixtureTrajectories(): Trajectory[] {
  const specs: TrajectorySpec[] = [
    {
      group: "A",
      index: 0,
      prompt: 5,
      turns: ["S3", "O2", "S4"],
      calls: [{ name: "search", latency: 10 }],
      reward: 1,
      components: { exact_match: 1, format: 1 },
      status: "completed",
    },
    {
      group: "A",
      index: 1,
      prompt: 5,
      turns: ["S2", "O3", "S1", "O3", "S2"],
      calls: [
        { name: "search", latency: 20 },
        { name: "search", latency: 300, error: "TIMEOUT" },
      ],
      reward: 1,
      components: { exact_match: 1, format: 1 },
      status: "completed",
      timings: { tool_ms: 320 },
    },
    {
      group: "A",
      index: 2,
      prompt: 5,
      turns: ["S4"],
      reward: 1,
      components: { exact_match: 1, format: 0.5 },
      status: "completed",
    },
    {
      group: "A",
      index: 3,
      prompt: 5,
      turns: ["S1", "O1", "S1", "O1", "S1", "O1", "S1"],
      calls: [
        { name: "search", latency: 5 },
        { name: "search", latency: 7 },
        { name: "fetch", latency: 1500, error: "UNAVAILABLE", result: "</pre><script>alert(2)</script>" },
      ],
      reward: 1,
      components: { exact_match: 0, format: 1 },
      status: "truncated",
      reason: "max_turns",
    },
    {
      group: "B",
      index: 0,
      prompt: 8,
      turns: ["S6"],
      reward: 0,
      components: { exact_match: 0, f1: 0.2, format: 1 },
      status: "completed",
    },
    {
      group: "B",
      index: 1,
      prompt: 8,
      turns: ["S2", "O2", "S2"],
      calls: [{ name: "fetch", latency: 40 }],
      reward: 0.5,
      components: { exact_match: 0, f1: 0.5 },
      status: "aborted",
      reason: "deadline",
    },
    {
      group: "B",
      index: 2,
      prompt: 8,
      turns: ["S1"],
      calls: [{ name: "search", latency: 0.4, error: "TIMEOUT" }],
      reward: null,
      rewardError: { component: "judge", code: "TIMEOUT", message: "judge <b>timed out</b>" },
      status: "failed",
      reason: "sampler_error",
    },
    {
      task: HOSTILE_TASK_ID,
      group: "C",
      prompt: 3,
      turns: ["S2", "O1", "S2"],
      reward: 0,
      components: { exact_match: 0 },
      status: "truncated",
      reason: "max_turns",
    },
    {
      group: "D",
      index: 0,
      prompt: 4,
      turns: ["S3"],
      reward: 0,
      components: { exact_match: 0 },
      status: "completed",
    },
    {
      group: "D",
      index: 1,
      prompt: 4,
      turns: ["S3"],
      reward: 0,
      components: { exact_match: 0 },
      status: "completed",
    },
  ];
  return specs.map((s, i) => buildTrajectory({ ...s, timings: { ...s.timings, total_ms: 100 * (i + 1) } }));
}
