import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ToolCallRecord, type Trajectory, trajectorySchema } from "./trajectory.ts";
import { TrajectoryAlignmentError, TrajectoryBuilder } from "./trajectory-builder.ts";

const VOCAB = 1000;
const builder = () =>
  new TrajectoryBuilder({
    taskId: "t1",
    groupId: "g1",
    sampleIndex: 2,
    promptIds: [1, 2, 3],
    vocabSize: VOCAB,
    policyVersion: 7,
  });

function sample(): TrajectoryBuilder {
  const b = builder();
  const turn = b.appendSampled([10, 11, 12], [-0.1, -2, 0], { policyVersion: 7 });
  b.recordToolCall({
    name: "search",
    arguments: { query: "x" },
    result: "r",
    latency_ms: 12.5,
    error_code: null,
    is_error: false,
    turn,
  });
  b.appendObservation([20, 21]);
  b.appendSampled([30], [-0.5], { policyVersion: 8 });
  b.setReward(1.1, { em: 1, format: 0.1 });
  b.addTiming("generate_ms", 5);
  b.addTiming("generate_ms", 7);
  b.finish("completed");
  return b;
}

describe("TrajectoryBuilder", () => {
  it("builds aligned ids, mask, logprobs and turn boundaries", () => {
    const r = sample().toJSON();
    expect(r.prompt_ids).toEqual([1, 2, 3]);
    expect(r.response_ids).toEqual([10, 11, 12, 20, 21, 30]);
    expect(r.loss_mask).toEqual([1, 1, 1, 0, 0, 1]);
    expect(r.rollout_logprobs).toEqual([-0.1, -2, 0, 0, 0, -0.5]);
    expect(r.turns).toEqual([
      { kind: "sampled", start: 0, end: 3, policy_version: 7 },
      { kind: "observation", start: 3, end: 5 },
      { kind: "sampled", start: 5, end: 6, policy_version: 8 },
    ]);
    expect(r.timings).toEqual({ generate_ms: 12 });
    expect(r.reward).toBe(1.1);
    expect(r.reward_components).toEqual({ em: 1, format: 0.1 });
    expect(r.status).toBe("completed");
    expect(r.policy_version).toBe(7);
    expect(Object.is(r.rollout_logprobs[2], -0)).toBe(false);
  });

  it("refuses misaligned sampled turns, naming the numbers", () => {
    const b = builder();
    expect(() => b.appendSampled([1, 2, 3], [-1, -1])).toThrow(
      /3 ids but 2 logprobs \(turn 0, response at 0\)/,
    );
    expect(() => b.appendSampled([1, 2], [-1, 0.5])).toThrow(
      /logprobs\[1\] = 0.5 for id 2 must be finite and ≤ 0/,
    );
    expect(() => b.appendSampled([1], [Number.NaN])).toThrow(/logprobs\[0\] = NaN/);
    expect(() => b.appendSampled([1], [Number.NEGATIVE_INFINITY])).toThrow(/-Infinity/);
    expect(() => b.appendSampled([1, 1000], [-1, -1])).toThrow(
      /ids \(turn 0\)\[1\] = 1000 is not an integer id in \[0, 1000\)/,
    );
    expect(() => b.appendSampled([1.5], [-1])).toThrow(/= 1.5 is not an integer id/);
    expect(() => b.appendObservation([-1])).toThrow(/\[0\] = -1 is not an integer id/);
    expect(() => b.appendSampled([], [])).toThrow(TrajectoryAlignmentError);
    expect(() => b.appendObservation([])).toThrow(/no ids/);
    expect(b.responseLength).toBe(0); // failed appends leave nothing behind
    expect(
      () =>
        new TrajectoryBuilder({
          taskId: "t",
          groupId: "g",
          sampleIndex: 0,
          promptIds: [5000],
          vocabSize: VOCAB,
        }),
    ).toThrow(/promptIds\[0\] = 5000/);
  });

  it("takes policy_version from the first sampled turn when not given at start (SGLang strings too)", () => {
    const b = new TrajectoryBuilder({
      taskId: "t",
      groupId: "g",
      sampleIndex: 0,
      promptIds: [1],
      vocabSize: VOCAB,
    });
    b.appendSampled([1], [-1]);
    b.appendSampled([2], [-1], { policyVersion: "v12" });
    b.appendSampled([3], [-1], { policyVersion: "v13" });
    b.finish("aborted", "weights updated");
    expect(b.toJSON().policy_version).toBe("v12");
  });

  it("is closed by finish() and cannot be serialized before it", () => {
    const b = builder();
    b.appendSampled([1], [-1]);
    expect(() => b.toJSON()).toThrow(/before finish/);
    b.finish("truncated", "max_response_tokens");
    expect(() => b.appendObservation([2])).toThrow(/after finish\(truncated\)/);
    expect(b.toJSON().status_reason).toBe("max_response_tokens");
  });

  it("hands out records trajectorySchema accepts, each with lists of its own", () => {
    const b = sample();
    const first = b.toJSON();
    expect(trajectorySchema.parse(first)).toEqual(first);
    first.prompt_ids.length = 0;
    first.response_ids.push(999);
    first.loss_mask[0] = 0;
    first.rollout_logprobs[0] = -9;
    first.tool_calls[0]!.result = "changed";
    const second = b.toJSON();
    expect(second.tool_calls[0]!.result).toBe("r");
    expect(second.prompt_ids).toEqual([1, 2, 3]);
    expect(second.response_ids).toEqual([10, 11, 12, 20, 21, 30]);
    expect(second.loss_mask).toEqual([1, 1, 1, 0, 0, 1]);
    expect(second.rollout_logprobs).toEqual([-0.1, -2, 0, 0, 0, -0.5]);
  });

  it("checks each tool call as toolCallRecordSchema does: bad ones refused, other keys dropped", () => {
    const b = builder();
    const turn = b.appendSampled([1], [-1]);
    const call = {
      name: "search",
      arguments: { q: 1 },
      result: "r",
      latency_ms: 2,
      error_code: null,
      is_error: false,
      turn,
    };
    expect(() => b.recordToolCall({ ...call, latency_ms: -1 })).toThrow(/latency_ms/);
    expect(() => b.recordToolCall({ ...call, latency_ms: Number.NaN })).toThrow(/latency_ms/);
    expect(() => b.recordToolCall({ ...call, turn: 1.5 })).toThrow(/turn/);
    expect(() => b.recordToolCall({ ...call, is_error: "no" as unknown as boolean })).toThrow(/is_error/);
    b.recordToolCall({ ...call, extra: "dropped" } as ToolCallRecord);
    b.recordToolCall({
      ...call,
      usage: { prompt_tokens: 3, completion_tokens: 4, model: "m", other: 1 },
    } as ToolCallRecord);
    b.recordToolCall(call);
    b.finish("completed");
    const { tool_calls } = b.toJSON();
    expect(tool_calls).toEqual([
      call,
      { ...call, usage: { prompt_tokens: 3, completion_tokens: 4, model: "m" } },
      call,
    ]);
    expect(Object.keys(tool_calls[0]!)).not.toContain("extra");
  });

  it("refuses a field the record's schema refuses when it is set, and its record matches the schema", () => {
    const init = { taskId: "t", groupId: "g", sampleIndex: 0, promptIds: [1], vocabSize: VOCAB };
    expect(() => new TrajectoryBuilder({ ...init, sampleIndex: -1 })).toThrow(/sample_index/);
    expect(() => new TrajectoryBuilder({ ...init, vocabSize: 2 ** 32 })).toThrow(
      /vocabSize must be an integer in \[1, 2\^31\]/,
    );
    expect(() => new TrajectoryBuilder({ ...init, samplingTemperature: -0.5 })).toThrow(
      /sampling_temperature/,
    );
    expect(() => new TrajectoryBuilder({ ...init, policyVersion: 1.5 })).toThrow(/policy_version/);
    const b = builder();
    expect(() => b.appendSampled([1], [-1], { policyVersion: 2.5 })).toThrow();
    expect(b.nextTurn).toBe(0);
    expect(() => b.setReward(Number.NaN)).toThrow();
    expect(() => b.setReward(1, { em: Number.POSITIVE_INFINITY })).toThrow(/em/);
    expect(() => b.addTiming("generate_ms", -1)).toThrow();
    expect(() => b.finish("done" as never)).toThrow();
    b.appendSampled([1], [-1]);
    b.setReward(0.5, { em: 0.5 });
    b.finish("completed");
    const r = b.toJSON();
    expect(trajectorySchema.parse(r)).toEqual(r);
    expect(r.reward_components).toEqual({ em: 0.5 });
    expect(r.timings).toEqual({});
  });

  it("refuses at toJSON a record whose tool call names an observation turn", () => {
    const b = builder();
    b.appendSampled([1], [-1]);
    const observation = b.appendObservation([2]);
    b.recordToolCall({
      name: "search",
      arguments: {},
      result: "r",
      latency_ms: 1,
      error_code: null,
      is_error: false,
      turn: observation,
    });
    b.finish("completed");
    expect(() => b.toJSON()).toThrow(/must index a sampled turn/);
  });

  it("keeps every id, mask and logprob of a long trajectory as it grows past its storage", () => {
    const b = builder();
    const ids: number[] = [];
    const logprobs: number[] = [];
    for (let t = 0; t < 40; t++) {
      const turn = Array.from({ length: 37 }, (_, i) => (t * 37 + i) % VOCAB);
      ids.push(...turn);
      if (t % 2 === 0) {
        const lps = turn.map((_, i) => (i === 0 ? -0 : -i / 8));
        logprobs.push(...lps.map((x) => x + 0));
        b.appendSampled(turn, lps);
      } else {
        logprobs.push(...turn.map(() => 0));
        b.appendObservation(turn);
      }
    }
    b.finish("completed");
    const r = b.toJSON();
    expect(b.responseLength).toBe(40 * 37);
    expect(r.response_ids).toEqual(ids);
    expect(r.rollout_logprobs).toEqual(logprobs);
    expect(Object.is(r.rollout_logprobs[0], 0)).toBe(true);
    expect(r.loss_mask).toEqual(
      r.turns.flatMap((t) => Array(t.end - t.start).fill(t.kind === "sampled" ? 1 : 0)),
    );
    expect(trajectorySchema.parse(r)).toEqual(r);
  });

  it("keeps the invariants for any sequence of valid appends", () => {
    const turnArb = fc.oneof(
      fc.record({
        kind: fc.constant("sampled" as const),
        ids: fc.array(fc.integer({ min: 0, max: VOCAB - 1 }), { minLength: 1, maxLength: 8 }),
      }),
      fc.record({
        kind: fc.constant("observation" as const),
        ids: fc.array(fc.integer({ min: 0, max: VOCAB - 1 }), { minLength: 1, maxLength: 8 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(turnArb, { maxLength: 10 }),
        fc.double({ min: -20, max: 0, noNaN: true }),
        (turns, lp) => {
          const b = builder();
          for (const t of turns) {
            if (t.kind === "sampled")
              b.appendSampled(
                t.ids,
                t.ids.map(() => lp),
              );
            else b.appendObservation(t.ids);
          }
          b.finish("completed");
          const r = b.toJSON();
          expect(r.response_ids).toEqual(turns.flatMap((t) => t.ids));
          expect(r.loss_mask).toEqual(turns.flatMap((t) => t.ids.map(() => (t.kind === "sampled" ? 1 : 0))));
          expect(r.rollout_logprobs.every((x, i) => (r.loss_mask[i] === 0 ? x === 0 : x === lp + 0))).toBe(
            true,
          );
          expect(r.turns.map((t) => t.end - t.start)).toEqual(turns.map((t) => t.ids.length));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("trajectorySchema", () => {
  const good = (): Trajectory => sample().toJSON();
  const issues = (r: unknown) => {
    const p = trajectorySchema.safeParse(r);
    return p.success ? [] : p.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("rejects records whose arrays, turns or masks disagree", () => {
    expect(issues(good())).toEqual([]);
    expect(issues({ ...good(), loss_mask: [1, 1, 1, 0, 0] })).toContain(
      "loss_mask: length 5 ≠ response_ids 6",
    );
    expect(issues({ ...good(), loss_mask: [1, 1, 1, 1, 0, 1] })).toContain(
      "loss_mask.3: must be 0 in observation turn 1",
    );
    expect(issues({ ...good(), rollout_logprobs: [-0.1, -2, 0, -1, 0, -0.5] })).toContain(
      "rollout_logprobs.3: must be 0.0 where masked",
    );
    const g = good();
    expect(issues({ ...g, turns: g.turns.slice(0, 2) })).toContain("turns: turns cover 5 of 6 tokens");
    expect(issues({ ...g, turns: [{ kind: "sampled", start: 0, end: 6 }] })).toContain(
      "loss_mask.3: must be 1 in sampled turn 0",
    );
    expect(issues({ ...g, tool_calls: [{ ...g.tool_calls[0]!, is_error: true }] })).toContain(
      "tool_calls.0: is_error must equal error_code !== null",
    );
    expect(issues({ ...g, tool_calls: [{ ...g.tool_calls[0]!, turn: 1 }] })).toContain(
      "tool_calls.0.turn: must index a sampled turn",
    );
    expect(issues({ ...g, rollout_logprobs: [-0.1, 2, 0, 0, 0, -0.5] }).length).toBeGreaterThan(0);
    expect(issues({ ...g, status: "done" }).length).toBeGreaterThan(0);
  });
});
