// What a turn of the loop comes to: the trajectory goes on (`next`) or ends with a status and its
// reason (`end`). Every phase returns an end or its own product; nothing else ends a trajectory.
import type { TrajectoryStatus } from "@rlfactory/contracts";

/** The trajectory ends: its status and the reason recorded with it (docs/rollout.md, "How a trajectory ends"). */
export interface LoopEnd {
  kind: "end";
  status: TrajectoryStatus;
  reason: string;
}

/** One turn's outcome. */
export type LoopStep = { kind: "next" } | LoopEnd;

export const NEXT: LoopStep = Object.freeze({ kind: "next" });

export function ended(status: TrajectoryStatus, reason: string): LoopEnd {
  return { kind: "end", status, reason };
}

export const CANCELLED: LoopEnd = Object.freeze(ended("aborted", "cancelled"));
