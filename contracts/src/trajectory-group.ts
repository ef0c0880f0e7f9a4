// A GRPO group: the n trajectories of one task, scored, with their reward statistics. The rollout
// engine yields it, the rollout service sends it (gRPC and HTTP), its clients and trainers read it.
import type { Trajectory } from "./trajectory.ts";

/** A group's reward statistics (the rollout engine's grpo.ts computes them). */
export interface GroupStats {
  /** Samples in the group, nulls included. */
  count: number;
  /** Samples with a reward. */
  scored: number;
  /** Over the scored rewards; null when none is scored. */
  mean: number | null;
  /** Unbiased (n − 1) std of the scored rewards; 0 for one scored reward, null for none. */
  std: number | null;
  min: number | null;
  max: number | null;
  /** True when the scored rewards are all equal (or fewer than two): every advantage is 0. */
  all_equal: boolean;
}

/** A group's statistics: its reward statistics, and its mean turn reward per sampled turn. */
export interface TrajectoryGroupStats extends GroupStats {
  /**
   * Entry K − 1: the mean reward of the K-th sampled turn over the group's trajectories that carry
   * `turn_rewards` and reached it; absent when none carries `turn_rewards` (or none has a sampled turn).
   */
  turn_reward_mean?: number[];
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
