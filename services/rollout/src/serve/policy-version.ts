// The trainer's current weight version, as the rollout service knows it, and the staleness rule applied
// to each group as it finishes. In async RL the engine keeps sampling while the trainer updates weights;
// a trajectory that started under weights too many steps old is flagged (`stale: true`) or its whole
// group is dropped (GRPO advantages are relative to the group, so a partial group would be biased).

import type { Trajectory } from "@rlfactory/contracts";
import type { RolloutConfig } from "../rollout/rollout-config.ts";
import type { TrajectoryGroup } from "../rollout/rollout-engine.ts";

export type PolicyVersion = number | string;

export interface PolicyVersionView {
  version: PolicyVersion | null;
  max_staleness: number | null;
  on_stale: "flag" | "drop";
}

export class PolicyVersionState {
  #current: PolicyVersion | null = null;
  readonly #maxStaleness: number | undefined;
  readonly #onStale: "flag" | "drop";

  constructor(rule: RolloutConfig["staleness"]) {
    this.#maxStaleness = rule.max_staleness;
    this.#onStale = rule.on_stale;
  }

  get current(): PolicyVersion | null {
    return this.#current;
  }

  set(version: PolicyVersion): PolicyVersionView {
    this.#current = version;
    return this.view();
  }

  view(): PolicyVersionView {
    return { version: this.#current, max_staleness: this.#maxStaleness ?? null, on_stale: this.#onStale };
  }

  /** Is this trajectory more than max_staleness versions behind the current one? */
  isStale(t: Trajectory): boolean {
    const current = this.#current;
    if (this.#maxStaleness === undefined || typeof current !== "number") return false;
    const oldest = oldestVersion(t);
    return oldest !== undefined && current - oldest > this.#maxStaleness;
  }

  /** The group as the caller should get it: stale trajectories flagged, or the group emptied (drop). */
  apply(group: TrajectoryGroup): TrajectoryGroup {
    const stale = group.trajectories.filter((t) => this.isStale(t));
    if (stale.length === 0) return group;
    if (this.#onStale === "flag") {
      for (const t of stale) t.stale = true;
      return group;
    }
    return {
      ...group,
      trajectories: [],
      stats: { count: 0, scored: 0, mean: null, std: null, min: null, max: null, all_equal: true },
      droppedStale: group.trajectories.length,
    };
  }
}

/** The oldest integer version the trajectory was sampled under (its start, or any turn's). */
function oldestVersion(t: Trajectory): number | undefined {
  const versions = [t.policy_version, ...t.turns.map((turn) => turn.policy_version)].filter(
    (v): v is number => typeof v === "number",
  );
  return versions.length === 0 ? undefined : Math.min(...versions);
}
