import { appendFile, readFile } from "node:fs/promises";
import { z } from "zod";
import { LOGPROBS_KINDS, type LogprobsKind } from "./inference/types.ts";

/**
 * The engine-neutral record of one rollout (slime `Sample`-like): the prompt's ids, then one flat
 * response made of sampled turns (loss mask 1, the sampler's logprobs) and observation turns (tool
 * results and template tokens: loss mask 0, logprob 0.0). Sampled ids are the sampler's ids, never
 * re-tokenized text; see docs/trajectory.md.
 */

export const TRAJECTORY_SCHEMA_VERSION = 1;

const tokenId = z.number().int().nonnegative();
const nonNegInt = z.number().int().nonnegative();
/** A trainer step (verl, SkyRL) or an engine's weight-version string (SGLang `weight_version`). */
const policyVersion = z.union([z.number().int(), z.string()]);

/**
 * A version as text (proto fields, SGLang's `weight_version`): text that a safe integer prints as
 * (`"7"`, `"-1"`, not `"07"`) is a trainer step and becomes that number; anything else stays text.
 */
export function policyVersionFromText(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) && String(n) === text ? n : text;
}

export const turnSchema = z.object({
  kind: z.enum(["sampled", "observation"]),
  /** First index in response_ids. */
  start: nonNegInt,
  /** One past the last index in response_ids. */
  end: nonNegInt,
  /** Weight version the sampler reported for this turn (sampled turns, async engines). */
  policy_version: policyVersion.nullable().optional(),
});

export const toolCallRecordSchema = z.object({
  name: z.string(),
  arguments: z.unknown(),
  /** The result text shown to the model (before any token-budget truncation). */
  result: z.string(),
  latency_ms: z.number().nonnegative(),
  /** Machine-readable failure code (`timeout`, `tool_error`, `parse_error`, ...), null on success. */
  error_code: z.string().nullable(),
  is_error: z.boolean(),
  /** Index into `turns` of the sampled turn that made the call. */
  turn: nonNegInt.optional(),
});

export const rewardErrorSchema = z.object({
  /** The reward component that failed (`judge`, `tool_verified`, ...). */
  component: z.string(),
  /** Machine-readable code (`TIMEOUT`, `UNAVAILABLE`, `JUDGE_PARSE_ERROR`, ...). */
  code: z.string(),
  message: z.string(),
});

export const trajectoryStatusSchema = z.enum(["completed", "truncated", "aborted", "failed"]);

export const trajectorySchema = z
  .object({
    schema_version: z.literal(TRAJECTORY_SCHEMA_VERSION),
    task_id: z.string(),
    group_id: z.string(),
    sample_index: nonNegInt,
    /** Weights the rollout started with: given at start, else the first sampled turn's (turns carry their own). */
    policy_version: policyVersion.nullable(),
    prompt_ids: z.array(tokenId).min(1),
    response_ids: z.array(tokenId),
    loss_mask: z.array(z.union([z.literal(0), z.literal(1)])),
    rollout_logprobs: z.array(z.number().finite().max(0)),
    /**
     * Which logprobs `rollout_logprobs` are (`inference.logprobs_mode`): `raw` (temperature 1, vLLM's
     * default) or `processed` (of the distribution sampled from, after temperature). Absent: unknown.
     */
    logprobs_kind: z.enum(LOGPROBS_KINDS).optional(),
    /** The temperature the sampled turns were drawn at (`rollout.sampling.temperature` or the request's). */
    sampling_temperature: z.number().finite().min(0).optional(),
    turns: z.array(turnSchema),
    tool_calls: z.array(toolCallRecordSchema),
    /** Null when not scored yet, or when scoring hit an infrastructure failure (see `reward_error`). */
    reward: z.number().finite().nullable(),
    reward_components: z.record(z.string(), z.number().finite()),
    /** Set when scoring failed for infrastructure reasons (judge down, verify tool timed out): never a silent 0. */
    reward_error: rewardErrorSchema.nullable().optional(),
    /**
     * Optional per-turn rewards, one per entry of `turns` (0 on observation turns): the process rewards
     * + weight × each per-turn component's value (`ftrl_solve`); a trainer puts entry i on turn i's last token.
     */
    turn_rewards: z.array(z.number().finite()).optional(),
    /** GRPO group-normalised advantage (null when the group could not be normalised, e.g. reward null). */
    advantage: z.number().finite().nullable().optional(),
    /** Sampled too many weight versions behind the trainer's current one (rollout service `staleness`). */
    stale: z.boolean().optional(),
    status: trajectoryStatusSchema,
    status_reason: z.string().nullable(),
    /** Milliseconds by phase (`generate_ms`, `tool_ms`, `reward_ms`, `total_ms`, ...). */
    timings: z.record(z.string(), z.number().nonnegative()),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((t, ctx) => {
    const n = t.response_ids.length;
    for (const [key, len] of [
      ["loss_mask", t.loss_mask.length],
      ["rollout_logprobs", t.rollout_logprobs.length],
    ] as const) {
      if (len !== n)
        ctx.addIssue({ code: "custom", path: [key], message: `length ${len} ≠ response_ids ${n}` });
    }
    let at = 0;
    t.turns.forEach((turn, i) => {
      if (turn.start !== at || turn.end <= turn.start || turn.end > n) {
        ctx.addIssue({
          code: "custom",
          path: ["turns", i],
          message: `turn [${turn.start}, ${turn.end}) must start at ${at}, be non-empty and end ≤ ${n}`,
        });
      }
      const want = turn.kind === "sampled" ? 1 : 0;
      for (let j = turn.start; j < Math.min(turn.end, n); j++) {
        if (t.loss_mask[j] !== want) {
          ctx.addIssue({
            code: "custom",
            path: ["loss_mask", j],
            message: `must be ${want} in ${turn.kind} turn ${i}`,
          });
          break;
        }
        if (want === 0 && t.rollout_logprobs[j] !== 0) {
          ctx.addIssue({
            code: "custom",
            path: ["rollout_logprobs", j],
            message: "must be 0.0 where masked",
          });
          break;
        }
      }
      at = turn.end;
    });
    if (t.turn_rewards !== undefined && t.turn_rewards.length !== t.turns.length) {
      ctx.addIssue({
        code: "custom",
        path: ["turn_rewards"],
        message: `length ${t.turn_rewards.length} ≠ turns ${t.turns.length}`,
      });
    }
    if (at !== n)
      ctx.addIssue({ code: "custom", path: ["turns"], message: `turns cover ${at} of ${n} tokens` });
    for (const [i, c] of t.tool_calls.entries()) {
      if (c.is_error !== (c.error_code !== null)) {
        ctx.addIssue({
          code: "custom",
          path: ["tool_calls", i],
          message: "is_error must equal error_code !== null",
        });
      }
      if (c.turn !== undefined && t.turns[c.turn]?.kind !== "sampled") {
        ctx.addIssue({
          code: "custom",
          path: ["tool_calls", i, "turn"],
          message: "must index a sampled turn",
        });
      }
    }
  });

export type Turn = z.infer<typeof turnSchema>;
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;
export type TrajectoryStatus = z.infer<typeof trajectoryStatusSchema>;
export type Trajectory = z.infer<typeof trajectorySchema>;
export type RewardError = z.infer<typeof rewardErrorSchema>;

/** Thrown when an append would break the record's alignment; the message carries the numbers. */
export class TrajectoryAlignmentError extends Error {
  override name = "TrajectoryAlignmentError";
}

export interface TrajectoryInit {
  taskId: string;
  groupId: string;
  sampleIndex: number;
  promptIds: readonly number[];
  /** Ids must be < vocabSize (the tokenizer's, or the model's embedding rows). */
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
  readonly #responseIds: number[] = [];
  readonly #lossMask: (0 | 1)[] = [];
  readonly #logprobs: number[] = [];
  readonly #turns: Turn[] = [];
  readonly #toolCalls: ToolCallRecord[] = [];
  readonly #timings: Record<string, number> = {};
  #reward: number | null = null;
  #rewardComponents: Record<string, number> = {};
  #status: TrajectoryStatus | null = null;
  #statusReason: string | null = null;

  constructor(init: TrajectoryInit) {
    if (!Number.isInteger(init.vocabSize) || init.vocabSize <= 0) {
      throw new TrajectoryAlignmentError(`vocabSize must be a positive integer, got ${init.vocabSize}`);
    }
    if (init.promptIds.length === 0) throw new TrajectoryAlignmentError("promptIds is empty");
    this.#init = init;
    this.#checkIds("promptIds", init.promptIds);
    this.#promptIds = [...init.promptIds];
  }

  get responseLength(): number {
    return this.#responseIds.length;
  }

  get turns(): readonly Turn[] {
    return this.#turns;
  }

  /** Index of the turn the next append creates. */
  get nextTurn(): number {
    return this.#turns.length;
  }

  #checkIds(what: string, ids: readonly number[]): void {
    const v = this.#init.vocabSize;
    ids.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= v) {
        throw new TrajectoryAlignmentError(`${what}[${i}] = ${id} is not an integer id in [0, ${v})`);
      }
    });
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
        `appendSampled: ${ids.length} ids but ${logprobs.length} logprobs (turn ${this.#turns.length}, response at ${this.#responseIds.length})`,
      );
    }
    this.#checkIds(`appendSampled ids (turn ${this.#turns.length})`, ids);
    logprobs.forEach((lp, i) => {
      if (!Number.isFinite(lp) || lp > 0) {
        throw new TrajectoryAlignmentError(
          `appendSampled: logprobs[${i}] = ${lp} for id ${ids[i]} must be finite and ≤ 0 (turn ${this.#turns.length})`,
        );
      }
    });
    return this.#push("sampled", ids, logprobs, options.policyVersion);
  }

  /** Appends observation/template ids (loss mask 0, logprob 0.0). Returns the turn index. */
  appendObservation(ids: readonly number[]): number {
    this.#checkOpen("appendObservation");
    if (ids.length === 0) throw new TrajectoryAlignmentError("appendObservation: no ids");
    this.#checkIds(`appendObservation ids (turn ${this.#turns.length})`, ids);
    return this.#push("observation", ids, null, undefined);
  }

  #push(
    kind: Turn["kind"],
    ids: readonly number[],
    logprobs: readonly number[] | null,
    policyVersion: number | string | null | undefined,
  ): number {
    const start = this.#responseIds.length;
    for (let i = 0; i < ids.length; i++) {
      this.#responseIds.push(ids[i]!);
      this.#lossMask.push(logprobs ? 1 : 0);
      this.#logprobs.push(logprobs ? logprobs[i]! + 0 : 0); // + 0 turns -0 into 0
    }
    const turn: Turn = { kind, start, end: this.#responseIds.length };
    if (policyVersion !== undefined) turn.policy_version = policyVersion;
    this.#turns.push(turn);
    return this.#turns.length - 1;
  }

  recordToolCall(call: ToolCallRecord): void {
    this.#toolCalls.push(toolCallRecordSchema.parse(call));
  }

  setReward(reward: number, components: Record<string, number> = {}): void {
    this.#reward = reward;
    this.#rewardComponents = { ...components };
  }

  /** Adds `ms` to the named timing (several turns accumulate into one total). */
  addTiming(name: string, ms: number): void {
    this.#timings[name] = (this.#timings[name] ?? 0) + ms;
  }

  finish(status: TrajectoryStatus, reason: string | null = null): void {
    this.#checkOpen("finish");
    this.#status = status;
    this.#statusReason = reason;
  }

  /** The plain record, validated by `trajectorySchema` (throws on any broken invariant). */
  toJSON(): Trajectory {
    if (this.#status === null) throw new TrajectoryAlignmentError("toJSON before finish()");
    return trajectorySchema.parse({
      schema_version: TRAJECTORY_SCHEMA_VERSION,
      task_id: this.#init.taskId,
      group_id: this.#init.groupId,
      sample_index: this.#init.sampleIndex,
      policy_version:
        this.#init.policyVersion ?? this.#turns.find((t) => t.policy_version != null)?.policy_version ?? null,
      prompt_ids: this.#promptIds,
      response_ids: this.#responseIds,
      loss_mask: this.#lossMask,
      rollout_logprobs: this.#logprobs,
      ...(this.#init.logprobsKind === undefined ? {} : { logprobs_kind: this.#init.logprobsKind }),
      ...(this.#init.samplingTemperature === undefined
        ? {}
        : { sampling_temperature: this.#init.samplingTemperature }),
      turns: this.#turns,
      tool_calls: this.#toolCalls,
      reward: this.#reward,
      reward_components: this.#rewardComponents,
      status: this.#status,
      status_reason: this.#statusReason,
      timings: this.#timings,
      ...(this.#init.metadata === undefined ? {} : { metadata: this.#init.metadata }),
    });
  }
}

/** Appends records to a JSONL file, one line each (validated first; nothing is written if one is bad). */
export async function appendTrajectoriesJsonl(
  path: string,
  records: readonly (Trajectory | TrajectoryBuilder)[],
): Promise<void> {
  const lines = records.map((r) =>
    JSON.stringify(r instanceof TrajectoryBuilder ? r.toJSON() : trajectorySchema.parse(r)),
  );
  if (lines.length > 0) await appendFile(path, `${lines.join("\n")}\n`, "utf8");
}

/** Reads and validates a JSONL file of records; a bad line fails with its line number. */
export async function readTrajectoriesJsonl(path: string): Promise<Trajectory[]> {
  const text = await readFile(path, "utf8");
  const out: Trajectory[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    const parsed = trajectorySchema.safeParse(json);
    if (!parsed.success) throw new Error(`${path}:${i + 1}: ${z.prettifyError(parsed.error)}`);
    out.push(parsed.data);
  }
  return out;
}
