// Trajectories for the contract's round-trip tests (JSONL ↔ Python, Parquet, gRPC): built with the
// TrajectoryBuilder, then given what the engine adds after building (advantage, turn_rewards,
// reward_error, stale). Between them they set every field of the record, and every optional one both
// present and absent; `fieldsCovered` says which, so a field added to the contract without a case here
// fails the coverage check.
import { type Trajectory, TrajectoryBuilder, trajectorySchema } from "@rlfactory/contracts";

const VOCAB = 200_000;

/** Scored, int policy version, raw logprobs at a temperature, per-turn rewards, a failed tool call, images. */
function scored(): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "bfcl-base-7",
    groupId: "bfcl-base-7#r3",
    sampleIndex: 0,
    promptIds: [151_644, 8948, 198, 2610],
    vocabSize: VOCAB,
    policyVersion: 7,
    logprobsKind: "raw",
    samplingTemperature: 0.7,
    metadata: {
      trajectory_id: "bfcl-base-7#r3/0",
      environment: { server: "bfcl", snapshots: [{ user_turn: 0, final: true, state: { cwd: "/tmp" } }] },
      user_turns: [{ index: 0, source: "prompt", content: "Hi ✓", turn: null }],
    },
  });
  const t0 = b.appendSampled([151_657, 4913, 151_658], [-0.125, -2.3456789012345, -1e-12], {
    policyVersion: 7,
  });
  b.recordToolCall({
    name: "cd",
    arguments: { folder: "docs", depth: 2, flags: [true, null] },
    result: '{"current_working_directory": "docs"}',
    latency_ms: 3.25,
    error_code: null,
    is_error: false,
    turn: t0,
  });
  b.recordToolCall({
    name: "ls",
    arguments: {},
    result: "the tool did not answer within 2000 ms",
    latency_ms: 2000,
    error_code: "TIMEOUT",
    is_error: true,
    turn: t0,
  });
  b.recordToolCall({
    name: "writer__summarise",
    arguments: { text: "a long text", max_words: 3 },
    result: "A short one.",
    latency_ms: 41.5,
    error_code: null,
    is_error: false,
    turn: t0,
    usage: { prompt_tokens: 57, completion_tokens: 4, cost_usd: 0.0000117, model: "gpt-4o-mini" },
  });
  // an observation holding a downscaled image's two placeholder tokens (response ids 5 and 6)
  const t1 = b.appendObservation([198, 151_644, 151_652, 151_655, 151_655, 151_653, 872]);
  b.recordImage({
    sha256: "a".repeat(64),
    mime_type: "image/png",
    path: `images/${"a".repeat(64)}.png`,
    width: 56,
    height: 28,
    shown: "downscaled",
    tool_call: 0,
    turn: t1,
    start: 5,
    end: 7,
    source_sha256: "b".repeat(64),
  });
  b.recordImage({
    sha256: "c".repeat(64),
    mime_type: "image/jpeg",
    path: `images/${"c".repeat(64)}.jpg`,
    width: 640,
    height: 480,
    shown: "dropped",
    tool_call: 2,
    turn: t1,
  });
  b.appendSampled([9707, 151_645], [-0.5, 0], { policyVersion: "8" });
  b.setReward(0.75, { bfcl_state: 1, ftrl_solve: 0.5 });
  b.addTiming("generate_ms", 40.25);
  b.addTiming("tool_ms", 2003.25);
  b.finish("completed");
  return { ...b.toJSON(), turn_rewards: [0.5, 0, 0.25], advantage: 1.0606601717798212, stale: false };
}

/** Scoring failed: reward null with reward_error, advantage null, stale, a version string, processed logprobs. */
function unscored(): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "hotpotqa-12",
    groupId: "hotpotqa-12#r1",
    sampleIndex: 3,
    promptIds: [1, 2, 3],
    vocabSize: VOCAB,
    policyVersion: "sglang-weights-v12",
    logprobsKind: "processed",
  });
  b.appendSampled([10, 11], [-0.3, -0.7]);
  b.recordToolCall({
    name: "search__search",
    arguments: "{not json",
    result: "",
    latency_ms: 0,
    error_code: "MALFORMED_PARSE_ERROR",
    is_error: true,
  });
  b.finish("truncated", "max_turns");
  return {
    ...b.toJSON(),
    reward_error: { component: "judge", code: "JUDGE_TIMEOUT", message: "the judge did not answer in 30 s" },
    advantage: null,
    stale: true,
  };
}

/** The minimum: no policy version, no optional field, no tool call, one observation-free turn. */
function bare(): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t",
    groupId: "g",
    sampleIndex: 1,
    promptIds: [0],
    vocabSize: VOCAB,
  });
  b.appendSampled([5], [-0.0]);
  b.finish("failed", "inference: connection refused");
  return b.toJSON();
}

/** A version that is a string of digits, a null reward_error and an empty metadata object. */
function digitsVersion(): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t2",
    groupId: "g2",
    sampleIndex: 0,
    promptIds: [4, 5],
    vocabSize: VOCAB,
    policyVersion: "12",
    samplingTemperature: 1,
    metadata: {},
  });
  b.appendSampled([6, 7, 8], [-1, -2, -3]);
  b.setReward(0, {});
  b.finish("aborted", "cancelled");
  return { ...b.toJSON(), reward_error: null, turn_rewards: [0] };
}

/** Every case, validated by the contract's schema. */
export function contractTrajectories(): Trajectory[] {
  return [scored(), unscored(), bare(), digitsVersion()].map((t) => trajectorySchema.parse(t));
}

/**
 * The fields the cases set (top level, and of turns / tool_calls), and the optional top-level ones
 * that some case leaves out: a coverage check compares them with the schema.
 */
export function fieldsCovered(cases: readonly Trajectory[]): {
  top: Set<string>;
  absentSomewhere: Set<string>;
  turn: Set<string>;
  toolCall: Set<string>;
  image: Set<string>;
} {
  const top = new Set(cases.flatMap((t) => Object.keys(t)));
  const absentSomewhere = new Set(
    Object.keys(trajectorySchema.shape).filter((k) => cases.some((t) => !(k in t))),
  );
  const turn = new Set(cases.flatMap((t) => t.turns.flatMap((x) => Object.keys(x))));
  const toolCall = new Set(cases.flatMap((t) => t.tool_calls.flatMap((x) => Object.keys(x))));
  const image = new Set(cases.flatMap((t) => (t.images ?? []).flatMap((x) => Object.keys(x))));
  return { top, absentSomewhere, turn, toolCall, image };
}
