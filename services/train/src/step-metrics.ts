// One line of `<out>/metrics.jsonl`: what one training step did — its tasks, the rollouts' rewards and
// statuses, what went into the update (datums, skipped trajectories, tokens), what the server answered
// (forward_backward and optim_step metrics) and where the time went.

import type { Trajectory } from "@rlfactory/contracts";
import { turnRewardMeans } from "@rlfactory/rollout";
import { z } from "zod";
import { CREDIT_ASSIGNMENTS } from "./credit-assignment.ts";
import type { DatumBatch } from "./datum.ts";
import type { ForwardBackwardOutput } from "./tinker-schema.ts";

const count = z.number().int().nonnegative();
const numbers = z.record(z.string(), z.number());

export const stepMetricsSchema = z.object({
  step: z.number().int().positive(),
  steps: z.number().int().positive(),
  /** Optimizer steps in the weights this step sampled from (= step − 1). */
  policy_version: count,
  task_ids: z.array(z.string()),
  /** The dataset cursor after this step. */
  dataset_cursor: count,
  trajectories: count,
  /** Trajectories sent to forward_backward. */
  datums: count,
  skipped: z.object({ aborted: count, failed: count, no_advantage: count, no_sampled_tokens: count }),
  status: z.record(z.string(), count),
  /** Over trajectories with a reward. */
  reward_mean: z.number().nullable(),
  /** Mean |advantage| over the datums (the trajectories' advantages). */
  advantage_abs_mean: z.number().nullable(),
  /** How advantages reached the tokens (`train.credit_assignment`). */
  credit_assignment: z.enum(CREDIT_ASSIGNMENTS),
  /** Mean |advantage| over the datums' weighted tokens: what the loss multiplies (per turn with `per_turn`). */
  token_advantage_abs_mean: z.number().nullable(),
  /**
   * Mean turn reward per sampled-turn index (entry K − 1: the K-th sampled turn) over the trajectories
   * that carry `turn_rewards` and reached it; null when none carries them.
   */
  turn_reward_mean: z.array(z.number()).nullable(),
  tokens: z.object({
    prompt: count,
    response: count,
    /** Response tokens with loss mask 1, over the datums. */
    sampled: count,
    /** model_input tokens over the datums. */
    datum_input: count,
  }),
  /** forward_backward's metrics (numbers only); null when there was nothing to train on. */
  forward_backward: numbers.nullable(),
  optim_step: numbers.nullable(),
  /**
   * Mean |training logprob − rollout logprob| over weighted tokens, when the server returns per-token
   * `logprobs` (a sampler/trainer mismatch shows here first); else null.
   */
  logprob_diff_mean: z.number().nullable(),
  sampler_path: z.string(),
  /** The training state saved after this step, or null. */
  checkpoint_path: z.string().nullable(),
  timings_ms: z.object({
    save_sampler: z.number(),
    rollout: z.number(),
    forward_backward: z.number(),
    optim_step: z.number(),
    checkpoint: z.number(),
    total: z.number(),
  }),
  time: z.string(),
});
export type StepMetrics = z.infer<typeof stepMetricsSchema>;

/** The rollout part of a step's metrics (rewards, statuses, tokens, datums). */
export function rolloutMetrics(
  trajectories: readonly Trajectory[],
  batch: DatumBatch,
): Pick<
  StepMetrics,
  | "trajectories"
  | "datums"
  | "skipped"
  | "status"
  | "reward_mean"
  | "advantage_abs_mean"
  | "token_advantage_abs_mean"
  | "turn_reward_mean"
  | "tokens"
> {
  const status: Record<string, number> = {};
  let rewardSum = 0;
  let rewarded = 0;
  let prompt = 0;
  let response = 0;
  for (const t of trajectories) {
    status[t.status] = (status[t.status] ?? 0) + 1;
    if (t.reward !== null) {
      rewardSum += t.reward;
      rewarded += 1;
    }
    prompt += t.prompt_ids.length;
    response += t.response_ids.length;
  }
  const advantages = batch.used.map((t) => Math.abs(t.advantage ?? 0));
  let tokenAdvantageSum = 0;
  let weighted = 0;
  for (const d of batch.datums) {
    const w = d.loss_fn_inputs.weights.data;
    const a = d.loss_fn_inputs.advantages?.data ?? [];
    for (let k = 0; k < w.length; k++) {
      if (w[k] === 0) continue;
      tokenAdvantageSum += Math.abs(a[k] ?? 0);
      weighted += 1;
    }
  }
  return {
    trajectories: trajectories.length,
    datums: batch.datums.length,
    skipped: { ...batch.skipped },
    status,
    reward_mean: rewarded > 0 ? rewardSum / rewarded : null,
    advantage_abs_mean:
      advantages.length > 0 ? advantages.reduce((a, b) => a + b, 0) / advantages.length : null,
    token_advantage_abs_mean: weighted > 0 ? tokenAdvantageSum / weighted : null,
    turn_reward_mean: turnRewardMeans(trajectories)?.map((m) => m.mean) ?? null,
    tokens: { prompt, response, sampled: batch.tokens.weighted, datum_input: batch.tokens.input },
  };
}

/** The numeric metrics of a server answer (SkyRL types them as a plain dict). */
export function numericMetrics(metrics: Record<string, unknown> | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(metrics ?? {})) if (typeof v === "number") out[k] = v;
  return out;
}

/** Mean |training − rollout logprob| over weighted positions, from forward_backward's per-datum `logprobs`. */
export function logprobDiffMean(batch: DatumBatch, output: ForwardBackwardOutput): number | null {
  if (output.loss_fn_outputs.length !== batch.datums.length) return null;
  let sum = 0;
  let n = 0;
  for (const [i, datum] of batch.datums.entries()) {
    const trained = output.loss_fn_outputs[i]?.logprobs?.data;
    const rollout = datum.loss_fn_inputs.logprobs?.data;
    const weights = datum.loss_fn_inputs.weights.data;
    if (trained === undefined || rollout === undefined || trained.length !== weights.length) return null;
    for (let k = 0; k < weights.length; k++) {
      if (weights[k] === 0) continue;
      sum += Math.abs(trained[k]! - rollout[k]!);
      n += 1;
    }
  }
  return n > 0 ? sum / n : null;
}
