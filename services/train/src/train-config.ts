// The `rlf train` configuration (one YAML file, snake_case keys). The rollout sections are the rollout
// config's own (gateway, judge, tokenizer, format, dataset, rollout, reward, advantage; see
// rollout/rollout-config.ts) and are parsed by it; `tinker` says which training server and model,
// `train` how many steps of what size, the optimizer and checkpointing. Parsed once, at the edge.
import { dirname, isAbsolute, resolve } from "node:path";
import { readConfigFile } from "@rlfactory/kit";
import { parseRolloutConfig, type RolloutConfig, RolloutConfigError } from "@rlfactory/rollout";
import { z } from "zod";
import { CREDIT_ASSIGNMENTS } from "./credit-assignment.ts";
import { LOSS_FN_CONFIG_KEYS, lossFnSchema } from "./tinker-schema.ts";

const positiveInt = z.number().int().positive();

/** The policy-gradient losses a rollout's datums (target tokens, weights, logprobs, advantages) feed. */
export const POLICY_LOSS_FNS = ["importance_sampling", "ppo", "cispo", "gspo", "dppo"] as const;

export const tinkerSectionSchema = z
  .strictObject({
    /** The server: SkyRL's Tinker API (`http://127.0.0.1:8000`) or hosted Tinker's base URL. */
    base_url: z.url(),
    /** Environment variable holding the API key (sent as `X-API-Key`); SkyRL needs none. */
    api_key_env: z.string().min(1).optional(),
    /** The model to fine-tune with a LoRA adapter, e.g. `Qwen/Qwen3-4B` (optional with `model_id`). */
    base_model: z.string().min(1).optional(),
    lora_rank: positiveInt.default(32),
    /** Seed of the LoRA initialisation; omitted: the server draws one. */
    lora_seed: z.number().int().optional(),
    /** Train an existing model (created elsewhere) instead of creating one; a resume creates a new one. */
    model_id: z.string().min(1).optional(),
    loss_fn: z.enum(POLICY_LOSS_FNS).default("importance_sampling"),
    /** Extra loss parameters (ppo/cispo/gspo: clip_low_threshold, clip_high_threshold; dppo: delta_low/high). */
    loss_fn_config: z.record(z.string(), z.number()).optional(),
    /** Stop token ids for turns without stop strings; default: the tokenizer's end-of-turn ids. */
    stop_token_ids: z.array(z.number().int().nonnegative()).optional(),
    /** Per HTTP request (retrieve_future polls excepted). */
    timeout_ms: positiveInt.default(120_000),
    /** Per retrieve_future poll (a poll that runs out is re-sent). */
    poll_timeout_ms: positiveInt.default(60_000),
    /** A future (a sample, a training step, a save) not done after this long fails the run. */
    future_timeout_ms: positiveInt.default(3_600_000),
    /** Wait after a `try_again` answer before polling again. */
    poll_interval_ms: z.number().int().min(0).default(250),
    /** Retries of a request after a connection error or a 5xx. */
    retries: z.number().int().min(0).default(3),
    /** HTTP requests in flight at most (sampling runs one request per trajectory turn). */
    max_concurrency: positiveInt.default(64),
    /** Session heartbeat period (hosted Tinker ends sessions that go quiet). */
    heartbeat_ms: positiveInt.default(10_000),
  })
  .superRefine((t, ctx) => {
    if (t.base_model === undefined && t.model_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["base_model"], message: "give base_model (or model_id)" });
    }
    const allowed = LOSS_FN_CONFIG_KEYS[lossFnSchema.parse(t.loss_fn)];
    for (const key of Object.keys(t.loss_fn_config ?? {})) {
      if (!allowed.includes(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["loss_fn_config", key],
          message: `loss_fn ${t.loss_fn} takes ${allowed.length > 0 ? allowed.join(", ") : "no loss_fn_config"}`,
        });
      }
    }
  });
export type TinkerSection = z.infer<typeof tinkerSectionSchema>;

export const adamSectionSchema = z.strictObject({
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.95),
  eps: z.number().gt(0).default(1e-12),
  weight_decay: z.number().min(0).default(0),
  /** Global gradient-norm clip (hosted Tinker; SkyRL ignores it). Omitted: not sent. */
  grad_clip_norm: z.number().min(0).optional(),
});

export const trainSectionSchema = z.strictObject({
  /** Training steps in all (a resumed run continues up to this many). */
  steps: positiveInt,
  /** Tasks per step, taken from the dataset in order (wrapping around); each runs rollout.group_size times. */
  tasks_per_step: positiveInt,
  learning_rate: z.number().min(0).default(4e-5),
  adam: adamSectionSchema.default(adamSectionSchema.parse({})),
  /** Save the training state and checkpoint.json every this many steps (and after the last one). */
  save_every: positiveInt.default(10),
  /** Output directory: metrics.jsonl, checkpoint.json, trajectories/ (`--out` wins; relative to the file). */
  out: z.string().min(1).optional(),
  /** Base of the per-trajectory sampling seeds; omitted: the server draws. */
  seed: z.number().int().optional(),
  /** Write each step's trajectories to trajectories/step-NNNNNN.jsonl. */
  save_trajectories: z.boolean().default(true),
  /**
   * How advantages reach the tokens (credit-assignment.ts): `outcome`, the trajectory's GRPO advantage
   * on every sampled token; `per_turn`, plus each sampled turn's group-normalised return-to-go of
   * `turn_rewards` (the same as `outcome` for trajectories without turn rewards).
   */
  credit_assignment: z
    .enum(CREDIT_ASSIGNMENTS, { error: `credit_assignment must be ${CREDIT_ASSIGNMENTS.join(" or ")}` })
    .default("per_turn"),
});
export type TrainSection = z.infer<typeof trainSectionSchema>;

export interface TrainConfig {
  tinker: TinkerSection;
  train: TrainSection;
  /**
   * The rollout sections, as the rollout engine takes them. Its `inference` block is a placeholder
   * naming the Tinker server: the engine is always given the Tinker sampler and never builds its own.
   */
  rollout: RolloutConfig & { dataset: NonNullable<RolloutConfig["dataset"]> };
}

export class TrainConfigError extends Error {
  override name = "TrainConfigError";
}

/** Rollout-config keys that mean nothing here, and why. */
const NOT_HERE: Record<string, string> = {
  inference: "training samples through the Tinker API (tinker.base_url), not an inference block",
  output: "outputs go to train.out (or --out)",
  staleness: "the training loop is on-policy: every step samples from the weights it trains",
  seed: "the sampling seed is train.seed",
};

/**
 * Validates a parsed config object; relative paths resolve against `baseDir`. `path` (the file it came
 * from, if any) is named in errors.
 */
export function parseTrainConfig(raw: unknown, baseDir: string = process.cwd(), path?: string): TrainConfig {
  const source = path === undefined ? "train config" : `train config ${path}`;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new TrainConfigError(`invalid ${source}: expected a mapping of sections`);
  }
  const { tinker, train, ...rest } = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, why] of Object.entries(NOT_HERE)) {
    if (key in rest) problems.push(`✖ ${key}: not a train config key (${why})\n  → at ${key}`);
  }
  const t = tinkerSectionSchema.safeParse(tinker);
  if (!t.success) problems.push(prefixed("tinker", t.error));
  const tr = trainSectionSchema.safeParse(train);
  if (!tr.success) problems.push(prefixed("train", tr.error));
  let rollout: RolloutConfig | undefined;
  try {
    const placeholder = { engine: "vllm", url: t.success ? t.data.base_url : "http://127.0.0.1:1" };
    rollout = parseRolloutConfig(
      {
        ...rest,
        inference: placeholder,
        ...(tr.success && tr.data.seed !== undefined ? { seed: tr.data.seed } : {}),
      },
      baseDir,
    );
  } catch (e) {
    if (!(e instanceof RolloutConfigError)) throw e;
    problems.push(e.message.replace(/^invalid rollout config:\n/, ""));
  }
  if (rollout !== undefined) {
    if (rollout.dataset === undefined)
      problems.push("✖ dataset: required (the tasks to train on)\n  → at dataset");
    const s = rollout.rollout.sampling;
    if (s.min_p !== undefined || s.repetition_penalty !== undefined) {
      problems.push("✖ the Tinker sampling API has no min_p or repetition_penalty\n  → at rollout.sampling");
    }
  }
  if (problems.length > 0 || !t.success || !tr.success || rollout === undefined) {
    throw new TrainConfigError(`invalid ${source}:\n${problems.join("\n")}`);
  }
  const trainSection = tr.data;
  if (trainSection.out !== undefined && !isAbsolute(trainSection.out)) {
    trainSection.out = resolve(baseDir, trainSection.out);
  }
  return {
    tinker: t.data,
    train: trainSection,
    rollout: rollout as TrainConfig["rollout"],
  };
}

/**
 * The warning `rlf train` gives when the rollouts sample at a temperature other than 1, else null.
 * Tinker's `forward_backward` scores the targets with the policy at temperature 1 (the losses take no
 * temperature), so the importance ratio exp(logp − rollout logprob) is that of another distribution
 * than the one the tokens were drawn from, whichever logprobs the sampler returns (docs/training.md).
 */
export function samplingTemperatureWarning(config: Pick<TrainConfig, "rollout">): string | null {
  const t = config.rollout.rollout.sampling.temperature;
  if (t === 1) return null;
  return (
    `rollout.sampling.temperature is ${t}: Tinker's forward_backward computes the policy's logprobs at ` +
    "temperature 1, so the importance-sampling losses compare them with the logprobs of tokens drawn from " +
    "another distribution; sample at temperature 1 for an unbiased ratio"
  );
}

/** Reads a YAML (or JSON) train config; relative paths in it resolve against the file's directory. */
export async function loadTrainConfig(path: string): Promise<TrainConfig> {
  const raw = readConfigFile(path, { what: "train config", error: TrainConfigError });
  return parseTrainConfig(raw, dirname(resolve(path)), path);
}

function prefixed(section: string, error: z.ZodError): string {
  const text = z.prettifyError(error);
  // issues inside the section name their path; one about the section itself (missing, not a mapping) does not
  return text.includes("→ at ") ? text.replaceAll("→ at ", `→ at ${section}.`) : `${text}\n  → at ${section}`;
}
