// A run's curves, batch by batch: one point per GRPO group in the order the groups completed (the
// order `rlf rollout` appends them to trajectories.jsonl and the rollout service sends them), with the
// group's mean reward and success rate, plus the run's status breakdown, mean turn reward per sampled
// turn and mean of each reward component. The console plots them for live runs (the rollout service's
// GET /v1/runs/:id) and finished ones (a run directory) alike.
import type { Trajectory } from "@rlfactory/contracts";
import type { CurvePoint, RunCurves } from "../serve/run-api-types.ts";
import { sampledTurnRewards } from "../turn-rewards.ts";

/**
 * A scored trajectory succeeded when its `exact_match` component (else `em`, else its reward) is at
 * least 1: the answer was right, whatever the format or length terms added.
 */
export function succeeded(t: Pick<Trajectory, "reward" | "reward_components">): boolean {
  const c = t.reward_components;
  return (c.exact_match ?? c.em ?? t.reward ?? 0) >= 1;
}

export function curvePoint(batch: number, group: readonly Trajectory[]): CurvePoint {
  const scored = group.filter((t) => t.reward !== null);
  return {
    batch,
    trajectories: group.length,
    scored: scored.length,
    reward_mean: scored.length === 0 ? null : scored.reduce((s, t) => s + (t.reward ?? 0), 0) / scored.length,
    success_rate: scored.length === 0 ? null : scored.filter(succeeded).length / scored.length,
  };
}

/** Accumulates a run's curves group by group (live), or over a finished run's trajectories at once. */
export class RunCurveTally {
  readonly #points: CurvePoint[] = [];
  readonly #status: Record<string, number> = {};
  readonly #components = new Map<string, { sum: number; n: number }>();
  readonly #turnSums: number[] = [];
  readonly #turnCounts: number[] = [];

  addGroup(group: readonly Trajectory[]): void {
    this.#points.push(curvePoint(this.#points.length, group));
    for (const t of group) {
      this.#status[t.status] = (this.#status[t.status] ?? 0) + 1;
      for (const [name, value] of Object.entries(t.reward_components)) {
        const c = this.#components.get(name) ?? { sum: 0, n: 0 };
        c.sum += value;
        c.n += 1;
        this.#components.set(name, c);
      }
      sampledTurnRewards(t)?.forEach((r, k) => {
        this.#turnSums[k] = (this.#turnSums[k] ?? 0) + r;
        this.#turnCounts[k] = (this.#turnCounts[k] ?? 0) + 1;
      });
    }
  }

  get trajectories(): number {
    return Object.values(this.#status).reduce((a, b) => a + b, 0);
  }

  get statusCounts(): Record<string, number> {
    return { ...this.#status };
  }

  curves(): RunCurves {
    return {
      points: [...this.#points],
      trajectories: this.trajectories,
      status_counts: { ...this.#status },
      // The same means as turnRewardMeans (../turn-rewards.ts), kept as running sums.
      turn_reward_mean:
        this.#turnSums.length === 0 ? null : this.#turnSums.map((sum, k) => sum / (this.#turnCounts[k] ?? 1)),
      reward_components: Object.fromEntries([...this.#components].map(([k, c]) => [k, c.sum / c.n])),
    };
  }
}

/** A finished run's curves: its trajectories grouped by `group_id`, groups in order of first appearance. */
export function runCurves(trajectories: readonly Trajectory[]): RunCurves {
  const groups = new Map<string, Trajectory[]>();
  for (const t of trajectories) {
    const g = groups.get(t.group_id);
    if (g) g.push(t);
    else groups.set(t.group_id, [t]);
  }
  const tally = new RunCurveTally();
  for (const g of groups.values()) tally.addGroup(g);
  return tally.curves();
}
