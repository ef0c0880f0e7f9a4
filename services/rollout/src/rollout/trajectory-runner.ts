// What runs one trajectory of the engine: the built-in loop (rollout-loop.ts `runTrajectory`) unless
// the engine is given another runner (`rlf rollout agent`: the user's agent program, agent/agent-runner.ts).
// Whatever runs it, the engine scores, groups and hands out the result the same way.
import type { Task } from "@rlfactory/contracts";
import type { LoopDeps } from "./loop-deps.ts";
import type { LoopResult, TrajectoryRun } from "./trajectory-state.ts";

export interface TrajectoryRunner {
  /** Runs one trajectory to a status; never throws for the trajectory's own failure. */
  run(task: Task, promptIds: readonly number[], run: TrajectoryRun): Promise<LoopResult>;
  close(): Promise<void>;
}

/** Builds a runner from the engine's shared parts (called once, when the engine is created). */
export type TrajectoryRunnerFactory = (deps: LoopDeps) => Promise<TrajectoryRunner>;
