// The environment states a trajectory stored (`metadata.environment.snapshots`, docs/trajectory.md) as
// full states. A snapshot stored as a diff (its state was over `rollout.max_snapshot_bytes`) is rebuilt
// from the episode's initial state plus its diff: the initial state is that of a fresh episode of the
// task's environment (started and ended through the gateway, once per task and scoring), checked
// against the diff's base digest, so a diff is never applied to another state.
import type { Task, Trajectory } from "@rlfactory/contracts";
import { serviceCallCode } from "@rlfactory/contracts";
import type { StoredSnapshot } from "../rollout/episodes.ts";
import { applyStateDiff, type StateDiff, stateDigest } from "../rollout/state-diff.ts";
import { oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import type { RewardContext } from "./types.ts";

/** The trajectory's stored snapshots, in order (none: an empty list). */
export function storedSnapshots(trajectory: Trajectory): Record<string, unknown>[] {
  const env = trajectory.metadata?.environment as { snapshots?: Record<string, unknown>[] } | undefined;
  return env?.snapshots ?? [];
}

/** The final stored snapshot; throws NO_SNAPSHOT when the trajectory has none. */
export function finalStoredSnapshot(trajectory: Trajectory, component: string): Record<string, unknown> {
  const last = storedSnapshots(trajectory).at(-1);
  if (last === undefined || last.final !== true) {
    throw new RewardConfigError(
      component,
      "NO_SNAPSHOT",
      "the trajectory has no final environment snapshot (its task has no `environment`)",
    );
  }
  return last;
}

/** Whether the stored snapshot is a diff against the episode's initial state. */
export const isDiffSnapshot = (s: Record<string, unknown>): boolean => Array.isArray(s.diff);

/** Where an initial state comes from: the state a fresh episode of the task's environment starts in. */
export type InitialState = () => Promise<unknown>;

const initialStates = new WeakMap<RewardContext, Map<string, Promise<unknown>>>();

/** The state a fresh episode of the task's environment starts in (once per environment config and scoring). */
export function freshInitialState(task: Task, ctx: RewardContext, component: string): InitialState {
  return () => {
    const environment = task.environment;
    if (environment === undefined)
      throw new RewardConfigError(component, "NO_ENVIRONMENT", `task ${task.id} has no environment`);
    const episodes = ctx.episodes;
    if (episodes === undefined)
      throw new RewardConfigError(component, "NO_EPISODE_API", "scoring has no gateway episode API");
    let byEnvironment = initialStates.get(ctx);
    if (byEnvironment === undefined) {
      byEnvironment = new Map();
      initialStates.set(ctx, byEnvironment);
    }
    const key = JSON.stringify([environment.server, environment.config]);
    let state = byEnvironment.get(key);
    if (state === undefined) {
      state = episodes.start(environment.server, environment.config).then((id) => episodes.end(id));
      byEnvironment.set(key, state);
    }
    return state.catch((e: unknown) => {
      throw new RewardInfraError(
        component,
        serviceCallCode((e as { code?: string }).code ?? "UNAVAILABLE"),
        oneLine(`the initial state of task ${task.id}'s environment: ${(e as Error).message}`),
      );
    });
  };
}

/**
 * The full state a stored snapshot holds: its `state`; or, for a diff, the initial state (from
 * `initial`, checked against the diff's base digest) with the diff applied. A truncated snapshot
 * throws SNAPSHOT_TRUNCATED; a base that does not match, SNAPSHOT_BASE_MISMATCH.
 */
export async function rebuiltState(
  snapshot: Record<string, unknown>,
  initial: InitialState,
  component: string,
): Promise<unknown> {
  if (snapshot.truncated === true) {
    throw new RewardConfigError(
      component,
      "SNAPSHOT_TRUNCATED",
      `the snapshot of user turn ${String(snapshot.user_turn)} was ${String(snapshot.bytes)} bytes, and its diff too, over rollout.max_snapshot_bytes: it was not stored`,
    );
  }
  if (!isDiffSnapshot(snapshot)) return snapshot.state;
  const stored = snapshot as Extract<StoredSnapshot, { diff: StateDiff }>;
  const state = await initial();
  const digest = stateDigest(state);
  if (digest !== stored.base.digest) {
    throw new RewardConfigError(
      component,
      "SNAPSHOT_BASE_MISMATCH",
      `the snapshot of user turn ${String(stored.user_turn)} is a diff against the initial state ${stored.base.digest}, but the environment now starts in ${digest}`,
    );
  }
  return applyStateDiff(state, stored.diff);
}
