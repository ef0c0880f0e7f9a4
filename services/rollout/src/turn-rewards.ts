// Reading a trajectory's per-turn rewards by sampled turn. `turn_rewards` has one entry per entry of
// `turns` (observation turns 0); the K-th sampled turn is the trajectory's K-th turn of kind "sampled".
// The run summary, the rollout service's group stats and `rlf train`'s metrics all report the mean turn
// reward per sampled-turn index from here, so the three agree.
import type { Trajectory } from "@rlfactory/contracts";

/** Indices into `turns` of the sampled turns, in order. */
export function sampledTurnIndices(t: Pick<Trajectory, "turns">): number[] {
  return t.turns.flatMap((turn, i) => (turn.kind === "sampled" ? [i] : []));
}

/** The turn reward of each sampled turn, in order; undefined when the trajectory carries none. */
export function sampledTurnRewards(t: Pick<Trajectory, "turns" | "turn_rewards">): number[] | undefined {
  const rewards = t.turn_rewards;
  if (rewards === undefined) return undefined;
  return sampledTurnIndices(t).map((i) => rewards[i] ?? 0);
}

export interface TurnRewardMean {
  /** Mean of the K-th sampled turn's reward over the trajectories that reached it. */
  mean: number;
  /** Trajectories that carry `turn_rewards` and reached the K-th sampled turn. */
  count: number;
}

/**
 * Per sampled-turn index K (array index K − 1), the mean turn reward over the trajectories that carry
 * `turn_rewards` and reached their K-th sampled turn; null when none carries `turn_rewards`.
 */
export function turnRewardMeans(trajectories: Iterable<Trajectory>): TurnRewardMean[] | null {
  const sums: number[] = [];
  const counts: number[] = [];
  let carrying = 0;
  for (const t of trajectories) {
    const rewards = sampledTurnRewards(t);
    if (rewards === undefined) continue;
    carrying += 1;
    rewards.forEach((r, k) => {
      sums[k] = (sums[k] ?? 0) + r;
      counts[k] = (counts[k] ?? 0) + 1;
    });
  }
  if (carrying === 0) return null;
  return sums.map((s, k) => ({ mean: s / counts[k]!, count: counts[k]! }));
}
