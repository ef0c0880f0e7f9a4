// The rollout service's run API as JSON (GET /v1/runs, GET /v1/runs/:id) and a run's curves (which a
// run directory's console answer carries too): types only, no runtime imports, so that the console's
// web app (services/console/web, built by Vite) can import them as they are (package subpath
// @rlfactory/rollout/run-api-types). Built by ../report/run-curves.ts and ./run-tracker.ts.

export interface CurvePoint {
  /** 0-based batch (group) index, in completion order. */
  batch: number;
  trajectories: number;
  /** Trajectories with a reward (not null). */
  scored: number;
  /** Mean reward of the group's scored trajectories; null when none was scored. */
  reward_mean: number | null;
  /** Share of the group's scored trajectories that succeeded (see `succeeded`); null when none was scored. */
  success_rate: number | null;
}

export interface RunCurves {
  points: CurvePoint[];
  trajectories: number;
  /** Trajectories per status (completed, truncated, aborted, failed). */
  status_counts: Record<string, number>;
  /** Mean turn reward of the K-th sampled turn at index K − 1; null when no trajectory carries turn_rewards. */
  turn_reward_mean: number[] | null;
  /** Mean of each reward component over the trajectories that carry it. */
  reward_components: Record<string, number>;
}

export type LiveRunState = "running" | "done" | "aborted" | "failed";

export interface LiveRunListing {
  id: string;
  /** The RPC or route that carried the request. */
  via: string;
  state: LiveRunState;
  started_at: string;
  /** Wall time so far (or until it ended). */
  elapsed_ms: number;
  /** Tasks in the request: one group each. */
  tasks: number;
  groups: number;
  trajectories: number;
  trajectories_per_s: number;
  status_counts: Record<string, number>;
  policy_version: string | number | null;
}

export interface LiveRun extends LiveRunListing {
  curves: RunCurves;
}
