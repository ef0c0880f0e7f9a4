// JSON record ↔ proto message, through real protobuf bytes (the serializers grpc-js uses on the wire).

import {
  type Trajectory,
  TrajectoryBuilder,
  type TrajectoryGroup,
  type TrajectoryGroupStats,
} from "@rlfactory/contracts";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/rollout";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto/load-service-proto";
import type {
  TrajectoryGroup as ProtoGroup,
  TrajectoryGroup__Output as ProtoGroupOut,
} from "@rlfactory/proto/types/TrajectoryGroup";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  groupFromProto,
  groupToProto,
  TrajectoryDecodeError,
  trajectoryFromProto,
  trajectoryToProto,
} from "./trajectory-codec.ts";

const method = loadServiceProto<ProtoGrpcType>(PROTO_FILES.rollout).grpc.rlfactory.v1.RolloutService.service
  .Rollout;

/** Encodes to bytes and decodes, as a server writing and a client reading the stream do. */
function overTheWire(group: ProtoGroup): ProtoGroupOut {
  return method.responseDeserialize(method.responseSerialize(group));
}

function builtRecord(overrides: Partial<Trajectory> = {}): Trajectory {
  const b = new TrajectoryBuilder({
    taskId: "t1",
    groupId: "g1",
    sampleIndex: 1,
    promptIds: [5, 6, 7],
    vocabSize: 200_000,
    policyVersion: 12,
    metadata: { model: "qwen3", nested: { k: [1, 2] } },
  });
  b.appendSampled([151_644, 10, 11], [-0.1, -2.3456789, -0], { policyVersion: "w-3" });
  b.appendObservation([20, 21]);
  b.recordToolCall({
    name: "search__search",
    arguments: { query: "capital of france", top_k: 3 },
    result: "Paris is the capital.",
    latency_ms: 12.5,
    error_code: null,
    is_error: false,
    turn: 0,
  });
  b.recordToolCall({
    name: "search__search",
    arguments: "{not json",
    result: "",
    latency_ms: 0,
    error_code: "parse_error",
    is_error: true,
  });
  b.recordToolCall({
    name: "writer__summarise",
    arguments: { text: "a long text", max_words: 5 },
    result: "short",
    latency_ms: 3,
    error_code: null,
    is_error: false,
    turn: 0,
    usage: { prompt_tokens: 41, completion_tokens: 2, cost_usd: 0.000123, model: "sim-writer" },
  });
  b.appendSampled([30], [-1e-9]);
  b.setReward(0.75, { em: 1, format: 0.5 });
  b.addTiming("generate_ms", 40.25);
  b.finish("truncated", "max_turns");
  return { ...b.toJSON(), advantage: -0.5, reward_error: null, turn_rewards: [0, 0, 1], ...overrides };
}

function groupOf(trajectories: Trajectory[], stats: Partial<TrajectoryGroupStats> = {}): TrajectoryGroup {
  return {
    taskId: "t1",
    groupId: "g1",
    trajectories,
    stats: {
      count: trajectories.length,
      scored: 1,
      mean: 0.75,
      std: 0,
      min: 0.75,
      max: 0.75,
      all_equal: true,
      ...stats,
    },
  };
}

/** What the codec documents: logprobs come back as float32, nothing else changes. */
function expectedAfterWire(t: Trajectory): Trajectory {
  return { ...t, rollout_logprobs: t.rollout_logprobs.map(Math.fround) };
}

describe("trajectory codec", () => {
  it("round-trips a full record through protobuf bytes, logprobs rounded to float32", () => {
    const record = builtRecord();
    const group = groupOf([record], { turn_reward_mean: [0.25, -1] });
    const back = groupFromProto(overTheWire(groupToProto(group)));
    expect(back.trajectories[0]).toEqual(expectedAfterWire(record));
    expect(back.trajectories[0]?.rollout_logprobs[0]).toBe(Math.fround(-0.1));
    expect(back.trajectories[0]?.rollout_logprobs[0]).not.toBe(-0.1);
    expect(back.stats).toEqual(group.stats); // the mean turn reward per sampled turn included
    expect([back.taskId, back.groupId]).toEqual(["t1", "g1"]);
  });

  it("keeps nulls and absences with the meaning the record gives them", () => {
    const record = builtRecord({
      policy_version: null,
      reward: null,
      reward_components: {},
      advantage: null,
      status: "failed",
      status_reason: null,
      reward_error: { component: "judge", code: "TIMEOUT", message: "judge did not answer in 30s" },
    });
    const { turn_rewards: _, ...withoutTurnRewards } = record;
    const noneScored = { scored: 0, mean: null, std: null, min: null, max: null };
    const back = groupFromProto(overTheWire(groupToProto(groupOf([withoutTurnRewards], noneScored))));
    expect(back.trajectories[0]).toEqual(expectedAfterWire(withoutTurnRewards));
    expect(back.trajectories[0]).not.toHaveProperty("turn_rewards");
    expect(back.stats).toEqual({ count: 1, all_equal: true, ...noneScored }); // no turn_reward_mean
  });

  it("sends policy versions as text and reads integer text back as numbers", () => {
    for (const [sent, received] of [
      [7, 7],
      [-1, -1],
      ["sglang-weights-42", "sglang-weights-42"],
      ["007", "007"],
      ["7", 7], // documented: a version string that is a number's decimal text comes back a number
    ] as const) {
      const back = trajectoryFromProto(
        overTheWire(groupToProto(groupOf([builtRecord({ policy_version: sent })]))).trajectories[0]!,
      );
      expect(back.policy_version).toBe(received);
    }
  });

  it("round-trips any valid logprobs and ids (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ids: fc.array(fc.integer({ min: 0, max: 151_935 }), { minLength: 1, maxLength: 8 }),
            logprob: fc.double({ min: -50, max: 0, noNaN: true }),
            observation: fc.array(fc.integer({ min: 0, max: 151_935 }), { maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (turns) => {
          const b = new TrajectoryBuilder({
            taskId: "p",
            groupId: "p",
            sampleIndex: 0,
            promptIds: [1],
            vocabSize: 151_936,
          });
          for (const turn of turns) {
            b.appendSampled(
              turn.ids,
              turn.ids.map(() => turn.logprob),
            );
            if (turn.observation.length > 0) b.appendObservation(turn.observation);
          }
          b.finish("completed");
          const record = { ...b.toJSON(), advantage: null, reward_error: null };
          const back = groupFromProto(overTheWire(groupToProto(groupOf([record])))).trajectories[0];
          expect(back).toEqual(expectedAfterWire(record));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("rejects a message that breaks the record's invariants, naming the field", () => {
    const wire = trajectoryToProto(builtRecord());
    const broken = overTheWire({
      ...groupToProto(groupOf([])),
      trajectories: [{ ...wire, loss_mask: [1, 1] }],
    });
    expect(() => groupFromProto(broken)).toThrow(TrajectoryDecodeError);
    expect(() => groupFromProto(broken)).toThrow(/loss_mask/);

    const unspecified = overTheWire({
      ...groupToProto(groupOf([])),
      trajectories: [{ ...wire, status: "TRAJECTORY_STATUS_UNSPECIFIED" }],
    });
    expect(() => groupFromProto(unspecified)).toThrow(/status TRAJECTORY_STATUS_UNSPECIFIED/);

    const noStats = overTheWire({ task_id: "t", group_id: "g", trajectories: [] });
    expect(() => groupFromProto(noStats)).toThrow(/no stats/);
  });
});
