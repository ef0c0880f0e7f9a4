// Builds a trajectory turn by turn and refuses any append that would break the record's alignment
// (ids, loss mask and logprobs), failing with the numbers. Every field is checked by its part of
// `trajectoryFields` when it comes in: the init's fields when the builder is made, each id, mask and
// logprob entry as it is appended (#checkIds, appendSampled's logprobs; the mask's 0 and 1 and an
// observation's 0.0 logprob are constants), a turn's policy version, every tool call and image when it is
// recorded, the reward, a timing, the status when they are set. So `toJSON` builds the record and checks
// only what spans fields, `checkTrajectoryInvariants`; a broken one is reported as `trajectorySchema`
// reports it (a ZodError with every issue).
import { z } from "zod";
import {
  checkTrajectoryInvariants,
  type LogprobsKind,
  type ToolCallRecord,
  TRAJECTORY_SCHEMA_VERSION,
  type Trajectory,
  type TrajectoryImage,
  type TrajectoryStatus,
  type Turn,
  toolCallRecordSchema,
  trajectoryFields,
  trajectoryImageSchema,
  turnSchema,
} from "./trajectory.ts";

/** A list whose entries the builder checked as they were appended: taken as it is. */
const appendedList = <T>() => z.custom<T[]>((x) => Array.isArray(x));

/** `trajectorySchema` for the builder's own records: the same fields and invariants, the lists as checked. */
const builtTrajectorySchema = trajectoryFields
  .extend({
    prompt_ids: appendedList<number>(),
    response_ids: appendedList<number>(),
    loss_mask: appendedList<0 | 1>(),
    rollout_logprobs: appendedList<number>(),
    tool_calls: appendedList<ToolCallRecord>(),
    images: appendedList<TrajectoryImage>().optional(),
  })
  .superRefine(checkTrajectoryInvariants);

/** The fields a builder takes from its init, checked once when it is made. */
const initFields = trajectoryFields.pick({
  task_id: true,
  group_id: true,
  sample_index: true,
  policy_version: true,
  logprobs_kind: true,
  sampling_temperature: true,
  metadata: true,
});
const {
  reward: rewardField,
  reward_components: componentsField,
  status: statusField,
  status_reason: statusReasonField,
} = trajectoryFields.shape;
const timingField = trajectoryFields.shape.timings.valueType;
const turnPolicyVersionField = turnSchema.shape.policy_version;

const TOOL_CALL_KEYS = new Set([
  "name",
  "arguments",
  "result",
  "latency_ms",
  "error_code",
  "is_error",
  "turn",
]);

/**
 * A tool call that `toolCallRecordSchema` takes unchanged, checked without zod (the engine records one
 * per call): no other keys, no `usage`. Anything else goes to the schema, which strips, accepts or
 * rejects it with its messages.
 */
function isPlainToolCallRecord(c: ToolCallRecord): boolean {
  if (typeof c !== "object" || c === null) return false;
  for (const key in c) if (!TOOL_CALL_KEYS.has(key)) return false;
  const { name, result, latency_ms, error_code, is_error, turn } = c;
  return (
    typeof name === "string" &&
    typeof result === "string" &&
    typeof latency_ms === "number" &&
    Number.isFinite(latency_ms) &&
    latency_ms >= 0 &&
    (error_code === null || typeof error_code === "string") &&
    typeof is_error === "boolean" &&
    (turn === undefined ? !("turn" in c) : Number.isSafeInteger(turn) && turn >= 0)
  );
}

const INITIAL_SLOTS = 256;
/** Ids are kept in an Int32Array. */
const MAX_VOCAB = 2 ** 31;

/** `into` (a larger array of the same kind) holding `from`'s entries first. */
function widened<A extends Int32Array | Uint8Array | Float64Array>(from: A, into: A): A {
  into.set(from);
  return into;
}

/** The first `length` entries of a typed array as a plain (packed) array. */
function plain(values: Int32Array | Uint8Array | Float64Array, length: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < length; i++) out.push(values[i]!);
  return out;
}

/** Thrown when an append would break the record's alignment; the message carries the numbers. */
export class TrajectoryAlignmentError extends Error {
  override name = "TrajectoryAlignmentError";
}

export interface TrajectoryInit {
  taskId: string;
  groupId: string;
  sampleIndex: number;
  promptIds: readonly number[];
  /** Ids must be < vocabSize (the tokenizer's, or the model's embedding rows), at most 2^31. */
  vocabSize: number;
  policyVersion?: number | string | null;
  /** What the sampler's logprobs are (recorded as `logprobs_kind`). */
  logprobsKind?: LogprobsKind;
  /** The sampling temperature of every sampled turn (recorded as `sampling_temperature`). */
  samplingTemperature?: number;
  metadata?: Record<string, unknown>;
}

/** Builds a trajectory turn by turn, refusing any append that would misalign ids, mask and logprobs. */
export class TrajectoryBuilder {
  readonly #init: TrajectoryInit;
  readonly #promptIds: number[];
  // The response's ids, mask and logprobs, the first #length slots of typed arrays that double as they
  // fill: their slots live outside the JS heap, so a young-generation GC does not copy them again and
  // again as a long trajectory grows (plain arrays it did, for every trajectory in flight).
  #responseIds = new Int32Array(INITIAL_SLOTS);
  #lossMask = new Uint8Array(INITIAL_SLOTS);
  #logprobs = new Float64Array(INITIAL_SLOTS);
  #length = 0;
  readonly #turns: Turn[] = [];
  readonly #toolCalls: ToolCallRecord[] = [];
  readonly #images: TrajectoryImage[] = [];
  readonly #timings: Record<string, number> = {};
  #reward: number | null = null;
  #rewardComponents: Record<string, number> = {};
  #status: TrajectoryStatus | null = null;
  #statusReason: string | null = null;

  constructor(init: TrajectoryInit) {
    if (!Number.isInteger(init.vocabSize) || init.vocabSize <= 0 || init.vocabSize > MAX_VOCAB) {
      throw new TrajectoryAlignmentError(
        `vocabSize must be an integer in [1, 2^31] (ids are kept as 32-bit integers), got ${init.vocabSize}`,
      );
    }
    if (init.promptIds.length === 0) throw new TrajectoryAlignmentError("promptIds is empty");
    initFields.parse({
      task_id: init.taskId,
      group_id: init.groupId,
      sample_index: init.sampleIndex,
      policy_version: init.policyVersion ?? null,
      logprobs_kind: init.logprobsKind,
      sampling_temperature: init.samplingTemperature,
      metadata: init.metadata,
    });
    this.#init = init;
    this.#checkIds(() => "promptIds", init.promptIds);
    this.#promptIds = [...init.promptIds];
  }

  get responseLength(): number {
    return this.#length;
  }

  get turns(): readonly Turn[] {
    return this.#turns;
  }

  /** Index of the turn the next append creates. */
  get nextTurn(): number {
    return this.#turns.length;
  }

  /** `what` names the list in the error (a function: the name is built only for a bad id). */
  #checkIds(what: () => string, ids: readonly number[]): void {
    const v = this.#init.vocabSize;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!Number.isInteger(id) || id < 0 || id >= v) {
        throw new TrajectoryAlignmentError(`${what()}[${i}] = ${id} is not an integer id in [0, ${v})`);
      }
    }
  }

  #checkOpen(what: string): void {
    if (this.#status !== null) throw new TrajectoryAlignmentError(`${what} after finish(${this.#status})`);
  }

  /** Appends the sampler's ids with their logprobs (one finite logprob ≤ 0 per id). Returns the turn index. */
  appendSampled(
    ids: readonly number[],
    logprobs: readonly number[],
    options: { policyVersion?: number | string | null } = {},
  ): number {
    this.#checkOpen("appendSampled");
    if (ids.length === 0) throw new TrajectoryAlignmentError("appendSampled: no ids");
    if (ids.length !== logprobs.length) {
      throw new TrajectoryAlignmentError(
        `appendSampled: ${ids.length} ids but ${logprobs.length} logprobs (turn ${this.#turns.length}, response at ${this.#length})`,
      );
    }
    this.#checkIds(() => `appendSampled ids (turn ${this.#turns.length})`, ids);
    if (options.policyVersion !== undefined) turnPolicyVersionField.parse(options.policyVersion);
    for (let i = 0; i < logprobs.length; i++) {
      const lp = logprobs[i]!;
      if (!Number.isFinite(lp) || lp > 0) {
        throw new TrajectoryAlignmentError(
          `appendSampled: logprobs[${i}] = ${lp} for id ${ids[i]} must be finite and ≤ 0 (turn ${this.#turns.length})`,
        );
      }
    }
    return this.#push("sampled", ids, logprobs, options.policyVersion);
  }

  /** Appends observation/template ids (loss mask 0, logprob 0.0). Returns the turn index. */
  appendObservation(ids: readonly number[]): number {
    this.#checkOpen("appendObservation");
    if (ids.length === 0) throw new TrajectoryAlignmentError("appendObservation: no ids");
    this.#checkIds(() => `appendObservation ids (turn ${this.#turns.length})`, ids);
    return this.#push("observation", ids, null, undefined);
  }

  #push(
    kind: Turn["kind"],
    ids: readonly number[],
    logprobs: readonly number[] | null,
    policyVersion: number | string | null | undefined,
  ): number {
    const start = this.#length;
    const end = start + ids.length;
    if (end > this.#responseIds.length) this.#grow(end);
    for (let i = 0; i < ids.length; i++) {
      this.#responseIds[start + i] = ids[i]!;
      this.#lossMask[start + i] = logprobs ? 1 : 0;
      this.#logprobs[start + i] = logprobs ? logprobs[i]! + 0 : 0; // + 0 turns -0 into 0
    }
    this.#length = end;
    const turn: Turn = { kind, start, end };
    if (policyVersion !== undefined) turn.policy_version = policyVersion;
    this.#turns.push(turn);
    return this.#turns.length - 1;
  }

  #grow(needed: number): void {
    const size = Math.max(needed, this.#responseIds.length * 2);
    this.#responseIds = widened(this.#responseIds, new Int32Array(size));
    this.#lossMask = widened(this.#lossMask, new Uint8Array(size));
    this.#logprobs = widened(this.#logprobs, new Float64Array(size));
  }

  /** Tool calls recorded so far (the next one's index in `tool_calls`). */
  get toolCallCount(): number {
    return this.#toolCalls.length;
  }

  /** Records a tool call (checked by `toolCallRecordSchema`: throws on a bad one). */
  recordToolCall(call: ToolCallRecord): void {
    this.#toolCalls.push(isPlainToolCallRecord(call) ? { ...call } : toolCallRecordSchema.parse(call));
  }

  /** Records a tool-result image (its span is checked against the turns by `toJSON`). */
  recordImage(image: TrajectoryImage): void {
    this.#images.push(trajectoryImageSchema.parse(image));
  }

  /** Sets the reward and its components (a finite number each: throws on any other). */
  setReward(reward: number, components: Record<string, number> = {}): void {
    this.#reward = rewardField.parse(reward);
    this.#rewardComponents = componentsField.parse({ ...components });
  }

  /** Adds `ms` (a number ≥ 0: throws on any other) to the named timing (several turns accumulate into one total). */
  addTiming(name: string, ms: number): void {
    this.#timings[name] = (this.#timings[name] ?? 0) + timingField.parse(ms);
  }

  finish(status: TrajectoryStatus, reason: string | null = null): void {
    this.#checkOpen("finish");
    this.#status = statusField.parse(status);
    this.#statusReason = statusReasonField.parse(reason);
  }

  /**
   * The plain record, checked as `trajectorySchema` checks it (see the header: its fields were checked as
   * they came in, the invariants across them are checked here; throws on any broken one). Its lists are
   * copies: the record does not change with the builder.
   */
  toJSON(): Trajectory {
    if (this.#status === null) throw new TrajectoryAlignmentError("toJSON before finish()");
    const record: Trajectory = {
      schema_version: TRAJECTORY_SCHEMA_VERSION,
      task_id: this.#init.taskId,
      group_id: this.#init.groupId,
      sample_index: this.#init.sampleIndex,
      policy_version:
        this.#init.policyVersion ?? this.#turns.find((t) => t.policy_version != null)?.policy_version ?? null,
      prompt_ids: this.#promptIds.slice(),
      response_ids: plain(this.#responseIds, this.#length),
      loss_mask: plain(this.#lossMask, this.#length) as (0 | 1)[],
      rollout_logprobs: plain(this.#logprobs, this.#length),
      ...(this.#init.logprobsKind === undefined ? {} : { logprobs_kind: this.#init.logprobsKind }),
      ...(this.#init.samplingTemperature === undefined
        ? {}
        : { sampling_temperature: this.#init.samplingTemperature }),
      turns: this.#turns.map((t) => ({ ...t })),
      tool_calls: this.#toolCalls.map((c) =>
        c.usage === undefined ? { ...c } : { ...c, usage: { ...c.usage } },
      ),
      reward: this.#reward,
      reward_components: { ...this.#rewardComponents },
      status: this.#status,
      status_reason: this.#statusReason,
      timings: { ...this.#timings },
      ...(this.#init.metadata === undefined ? {} : { metadata: { ...this.#init.metadata } }),
      ...(this.#images.length === 0 ? {} : { images: this.#images.map((i) => ({ ...i })) }),
    };
    let broken = false;
    checkTrajectoryInvariants(record, {
      addIssue: () => {
        broken = true;
      },
      value: record,
    } as unknown as z.RefinementCtx);
    // the schema finds the same issues again and throws them all, as trajectorySchema.parse would
    if (broken) builtTrajectorySchema.parse(record);
    return record;
  }
}
