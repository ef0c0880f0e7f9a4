// What the Trajectory view shows beside the tokens: the GRPO group's sibling trajectories (the same
// group id in the run) with their advantages, the environment's snapshots with the diff between
// consecutive ones (metadata.environment, docs/trajectory.md), and where the trajectory's trace is.
import type { Trajectory } from "@rlfactory/contracts";
import { type StateDiff, stateDiff } from "@rlfactory/rollout";
import type { TraceLink, TrajectoryListing } from "./api-types.ts";
import { listTrajectories } from "./run-directories.ts";

export interface SnapshotView {
  user_turn: number;
  final: boolean;
  /** How it was stored: the state itself, its diff against the episode's initial state, or only its size. */
  form: "state" | "diff" | "truncated";
  state?: unknown;
  /** form "diff": the stored RFC 6902 operations against the initial state. */
  diff_from_initial?: StateDiff;
  bytes?: number;
  /** The operations from the previous snapshot's state to this one's; null when either is not stored whole. */
  diff_from_previous: StateDiff | null;
}

export interface EnvironmentView {
  server: string;
  snapshots: SnapshotView[];
}

/** The trajectories of the run with `t`'s group id, in file order (itself included). */
export function groupSiblings(all: readonly Trajectory[], t: Trajectory): TrajectoryListing[] {
  return listTrajectories(all).filter((row) => all[row.index]?.group_id === t.group_id);
}

/** The stored snapshots, each with the diff from the one before; null when the task had no environment. */
export function environmentView(t: Trajectory): EnvironmentView | null {
  const env = t.metadata?.environment as { server?: unknown; snapshots?: unknown } | undefined;
  if (env === undefined || !Array.isArray(env.snapshots)) return null;
  let previous: { whole: true; state: unknown } | { whole: false } | undefined;
  const snapshots = (env.snapshots as Record<string, unknown>[]).map((s): SnapshotView => {
    const form = s.truncated === true ? "truncated" : Array.isArray(s.diff) ? "diff" : "state";
    const view: SnapshotView = {
      user_turn: Number(s.user_turn ?? 0),
      final: s.final === true,
      form,
      diff_from_previous:
        form === "state" && previous?.whole === true ? stateDiff(previous.state, s.state) : null,
    };
    if (form === "state") view.state = s.state;
    if (form === "diff") view.diff_from_initial = s.diff as StateDiff;
    if (typeof s.bytes === "number") view.bytes = s.bytes;
    previous = form === "state" ? { whole: true, state: s.state } : { whole: false };
    return view;
  });
  return { server: String(env.server ?? ""), snapshots };
}

/** Where the trajectory's trace can be seen. */
export function traceLink(t: Trajectory, run: string, index: number, jaeger: string | undefined): TraceLink {
  const id = t.metadata?.trace_id;
  const traceId = typeof id === "string" && /^[0-9a-f]{32}$/.test(id) ? id : null;
  const url =
    jaeger !== undefined && traceId !== null
      ? `${jaeger.replace(/\/+$/, "")}/trace/${traceId}`
      : `/runs/${encodeURIComponent(run)}/trajectories/${index}/trace`;
  return { trace_id: traceId, url };
}
