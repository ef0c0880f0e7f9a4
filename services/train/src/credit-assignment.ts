// Credit assignment: the advantage of each turn of each trajectory, which datum.ts puts on that turn's
// sampled tokens (train.credit_assignment).
//
//   outcome    A(i, k) = A(i)                       every sampled turn gets the trajectory's advantage
//   per_turn   A(i, k) = A(i) + T(i, k)
//
// A(i) is trajectory i's GRPO advantage (`advantage`, from its scalar `reward`, set by the rollout
// engine with the config's advantage mode). T(i, k) is the turn advantage of i's k-th sampled turn:
//
//   G(i, k) = Σ_{j ≥ turn index of k} turn_rewards(i)[j]         the return-to-go of turn rewards
//   T(i, k) = (G(i, k) − mean_k) / (std_k + ε)                    advantage.mode grpo
//           =  G(i, k) − mean_k                                   advantage.mode dr_grpo
//
// where mean_k and std_k (unbiased, n − 1) are over the trajectories of i's GRPO group that reached
// their k-th sampled turn, have an advantage and carry `turn_rewards` — the GRPO rule of grpo.ts applied
// per sampled-turn index, so a turn is compared with the same turn of its group's other samples (a
// time-dependent baseline: early turns sum more future rewards than late ones, and pooling them would
// credit earliness). As in grpo.ts, T is 0 when fewer than two samples reached turn k or their returns
// are all equal.
//
// Why the sum rather than normalising "outcome reward + return-to-go" together: a turn that only one
// sample of the group reached has no baseline, and normalising there would leave it without any
// signal, outcome included; with the sum it keeps A(i). And when the turn rewards carry no information
// (absent, or equal across the group at every turn), per_turn is exactly outcome.

import type { Trajectory } from "@rlfactory/contracts";
import { type AdvantageMode, groupAdvantages, sampledTurnIndices } from "@rlfactory/rollout";

export const CREDIT_ASSIGNMENTS = ["outcome", "per_turn"] as const;
export type CreditAssignment = (typeof CREDIT_ASSIGNMENTS)[number];

export interface CreditOptions {
  credit: CreditAssignment;
  /** The rollout config's advantage mode and ε (those A(i) was computed with). */
  mode: AdvantageMode;
  epsilon: number;
}

/** G(i, k) for each sampled turn k of a trajectory, in order; undefined without `turn_rewards`. */
export function turnReturns(t: Pick<Trajectory, "turns" | "turn_rewards">): number[] | undefined {
  const rewards = t.turn_rewards;
  if (rewards === undefined) return undefined;
  const suffix = new Array<number>(rewards.length + 1).fill(0);
  for (let j = rewards.length - 1; j >= 0; j--) suffix[j] = suffix[j + 1]! + rewards[j]!;
  return sampledTurnIndices(t).map((i) => suffix[i]!);
}

/**
 * For each trajectory (in input order), the advantage of every entry of its `turns` (sampled turns
 * A(i, k), observation turns 0), or null when it has no advantage. Groups are the trajectories'
 * `group_id`s.
 */
export function turnAdvantages(
  trajectories: readonly Trajectory[],
  options: CreditOptions,
): (number[] | null)[] {
  const extra = options.credit === "per_turn" ? perTurnTerms(trajectories, options) : undefined;
  return trajectories.map((t, i) => {
    const a = t.advantage;
    if (a === null || a === undefined) return null;
    const perTurn = t.turns.map(() => 0);
    const terms = extra?.[i];
    sampledTurnIndices(t).forEach((turn, k) => {
      perTurn[turn] = a + (terms?.[k] ?? 0);
    });
    return perTurn;
  });
}

/** T(i, k) for every trajectory that takes part (has an advantage and `turn_rewards`), else undefined. */
function perTurnTerms(trajectories: readonly Trajectory[], options: CreditOptions): (number[] | undefined)[] {
  const returns = trajectories.map((t) =>
    t.advantage === null || t.advantage === undefined ? undefined : turnReturns(t),
  );
  const groups = new Map<string, number[]>();
  trajectories.forEach((t, i) => {
    if (returns[i] === undefined) return;
    const members = groups.get(t.group_id) ?? [];
    members.push(i);
    groups.set(t.group_id, members);
  });
  const terms: (number[] | undefined)[] = returns.map((g) => g?.map(() => 0));
  for (const members of groups.values()) {
    const deepest = Math.max(...members.map((i) => returns[i]!.length));
    for (let k = 0; k < deepest; k++) {
      const reached = members.filter((i) => returns[i]!.length > k);
      const { advantages } = groupAdvantages(
        reached.map((i) => returns[i]![k]!),
        { mode: options.mode, epsilon: options.epsilon },
      );
      reached.forEach((i, n) => {
        terms[i]![k] = advantages[n] ?? 0;
      });
    }
  }
  return terms;
}
