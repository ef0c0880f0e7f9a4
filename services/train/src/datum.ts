// Trajectory → Tinker Datum, for the policy-gradient losses (importance_sampling, ppo, …).
//
// The sequence is prompt_ids ++ response_ids (length N). The model reads all but the last id and
// predicts each next one, so, for position i in [0, N−1):
//   model_input[i]   = sequence[i]
//   target_tokens[i] = sequence[i + 1]
//   weights[i]       = 0 when the target is a prompt id, else the loss mask of the target (1 sampled,
//                      0 tool observation / template ids)
//   logprobs[i]      = 0 over the prompt, else the rollout logprob of the target (0.0 where masked)
//   advantages[i]    = where weights[i] is 1, the advantage of the sampled turn the target is in
//                      (credit-assignment.ts: the trajectory's advantage with `outcome`, plus the
//                      turn's own term with `per_turn`), else 0
// Trajectories that cannot train are skipped and counted by reason: aborted or failed ones, those
// without an advantage (reward null: scoring failed), and those with no sampled token.
import type { Trajectory } from "@rlfactory/contracts";
import { type CreditOptions, turnAdvantages } from "./credit-assignment.ts";
import { type Datum, tensor } from "./tinker-schema.ts";

export type SkipReason = "aborted" | "failed" | "no_advantage" | "no_sampled_tokens";

export interface DatumBatch {
  datums: Datum[];
  /** The trajectories behind `datums`, in the same order. */
  used: Trajectory[];
  skipped: Record<SkipReason, number>;
  /** Model-input tokens over all datums, and the tokens among them with weight 1. */
  tokens: { input: number; weighted: number };
}

/** Why a trajectory cannot become a datum, or null when it can. */
export function skipReason(t: Trajectory): SkipReason | null {
  if (t.status === "aborted") return "aborted";
  if (t.status === "failed") return "failed";
  if (t.advantage === null || t.advantage === undefined) return "no_advantage";
  if (!t.loss_mask.includes(1)) return "no_sampled_tokens";
  return null;
}

/**
 * One trajectory as a Datum (throws if its arrays are misaligned or it has no advantage). `perTurn`,
 * one advantage per entry of `turns`, puts each sampled turn's own advantage on its tokens; without it
 * every sampled token gets the trajectory's advantage.
 */
export function trajectoryToDatum(t: Trajectory, perTurn?: readonly number[]): Datum {
  const p = t.prompt_ids.length;
  const r = t.response_ids.length;
  if (t.loss_mask.length !== r || t.rollout_logprobs.length !== r) {
    throw new RangeError(
      `trajectory ${t.group_id}/${t.sample_index}: ${r} response ids, ${t.loss_mask.length} mask values, ` +
        `${t.rollout_logprobs.length} logprobs`,
    );
  }
  const advantage = t.advantage;
  if (advantage === null || advantage === undefined) {
    throw new RangeError(`trajectory ${t.group_id}/${t.sample_index} has no advantage`);
  }
  if (perTurn !== undefined && perTurn.length !== t.turns.length) {
    throw new RangeError(
      `trajectory ${t.group_id}/${t.sample_index}: ${perTurn.length} turn advantages for ${t.turns.length} turns`,
    );
  }
  // the advantage of each response position: its turn's, or the trajectory's
  const responseAdvantage = new Array<number>(r).fill(advantage);
  if (perTurn !== undefined) {
    for (const [j, turn] of t.turns.entries()) responseAdvantage.fill(perTurn[j]!, turn.start, turn.end);
  }
  const sequence = [...t.prompt_ids, ...t.response_ids];
  const n = sequence.length - 1;
  const weights = new Array<number>(n);
  const logprobs = new Array<number>(n);
  const advantages = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const k = i + 1 - p; // index of the target in the response, negative inside the prompt
    const mask = k >= 0 ? t.loss_mask[k]! : 0;
    weights[i] = mask;
    logprobs[i] = k >= 0 ? t.rollout_logprobs[k]! : 0;
    advantages[i] = mask === 1 ? responseAdvantage[k]! : 0;
  }
  return {
    model_input: { chunks: [{ type: "encoded_text", tokens: sequence.slice(0, n) }] },
    loss_fn_inputs: {
      target_tokens: tensor(sequence.slice(1), "int64"),
      weights: tensor(weights, "float32"),
      logprobs: tensor(logprobs, "float32"),
      advantages: tensor(advantages, "float32"),
    },
  };
}

/**
 * The datums of one step's trajectories, with what was skipped and why. `credit` says how advantages
 * reach the tokens (default: `outcome`, the trajectory's advantage on every sampled token).
 */
export function buildDatums(
  trajectories: readonly Trajectory[],
  credit: CreditOptions = { credit: "outcome", mode: "grpo", epsilon: 1e-6 },
): DatumBatch {
  const perTurn = credit.credit === "outcome" ? undefined : turnAdvantages(trajectories, credit);
  const batch: DatumBatch = {
    datums: [],
    used: [],
    skipped: { aborted: 0, failed: 0, no_advantage: 0, no_sampled_tokens: 0 },
    tokens: { input: 0, weighted: 0 },
  };
  for (const [i, t] of trajectories.entries()) {
    const reason = skipReason(t);
    if (reason !== null) {
      batch.skipped[reason] += 1;
      continue;
    }
    const datum = trajectoryToDatum(t, perTurn?.[i] ?? undefined);
    batch.datums.push(datum);
    batch.used.push(t);
    batch.tokens.input += datum.loss_fn_inputs.target_tokens.data.length;
    batch.tokens.weighted += datum.loss_fn_inputs.weights.data.filter((w) => w === 1).length;
  }
  return batch;
}
