// The rollout engine's public face: give it tasks, get back scored GRPO groups of trajectories as each
// group completes. `rlf rollout` (a file of tasks) and `rlf rollout serve` (tasks from a training
// engine over gRPC/HTTP) are two front ends of this one interface.

import type { LogprobsKind, Task, TrajectoryGroup } from "@rlfactory/contracts";
import type { TokenEngineName } from "../inference/engines.ts";
import type { SamplingParams } from "../inference/types.ts";

export interface RolloutOptions {
  /** Samples per task (GRPO group size); default: the config's. */
  groupSize?: number;
  /** Overrides of the config's sampling parameters for this request. */
  sampling?: Partial<SamplingParams>;
  /** Override of the config's max turns. */
  maxTurns?: number;
  /** Weight version the caller expects (recorded on trajectories when the engine reports none). */
  policyVersion?: string | number | null;
  /** Generate on these inference servers (the training engine's own) instead of the config's. */
  inference?: InferenceTarget;
  /** Aborts the whole request: trajectories in flight end as `aborted` and are still returned. */
  signal?: AbortSignal;
}

// the group records are @rlfactory/contracts'
export type { GroupStats, TrajectoryGroup, TrajectoryGroupStats } from "@rlfactory/contracts";

/** A request's own inference servers; engine and model default to the config's. */
export interface InferenceTarget {
  urls: string[];
  engine?: TokenEngineName;
  model?: string;
  /** What these servers' logprobs are; default: the config's `inference.logprobs_mode`, else the engine's. */
  logprobsMode?: LogprobsKind;
}

export interface RolloutEngine {
  /**
   * Runs every task `groupSize` times with no per-turn batch barrier and yields each group once all
   * its samples are finished and scored (order of completion, not of input). Never throws for a
   * single trajectory's failure: that trajectory comes back with status `failed` and a reason.
   */
  rollout(tasks: readonly Task[], options?: RolloutOptions): AsyncIterable<TrajectoryGroup>;
  close(): Promise<void>;
}
