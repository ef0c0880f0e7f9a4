// The rollout engine's public face: give it tasks, get back scored GRPO groups of trajectories as each
// group completes. `rlf rollout` (a file of tasks) and `rlf rollout serve` (tasks from a training
// engine over gRPC/HTTP) are two front ends of this one interface.

import type { LogprobsKind, Task, Trajectory } from "@rlfactory/contracts";
import type { GroupStats } from "../grpo.ts";
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

export type { GroupStats } from "../grpo.ts";

/** A group's statistics: its reward statistics (grpo.ts), and its mean turn reward per sampled turn. */
export interface TrajectoryGroupStats extends GroupStats {
  /**
   * Entry K − 1: the mean reward of the K-th sampled turn over the group's trajectories that carry
   * `turn_rewards` and reached it (turn-rewards.ts); absent when none carries `turn_rewards` (or none
   * has a sampled turn).
   */
  turn_reward_mean?: number[];
}

/** A request's own inference servers; engine and model default to the config's. */
export interface InferenceTarget {
  urls: string[];
  engine?: TokenEngineName;
  model?: string;
  /** What these servers' logprobs are; default: the config's `inference.logprobs_mode`, else the engine's. */
  logprobsMode?: LogprobsKind;
}

/** The n samples of one task, scored, with GRPO advantages set on each trajectory. */
export interface TrajectoryGroup {
  taskId: string;
  groupId: string;
  trajectories: Trajectory[];
  stats: TrajectoryGroupStats;
  /** Trajectories removed as stale (the rollout service's `staleness.on_stale: drop`); absent: none. */
  droppedStale?: number;
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
