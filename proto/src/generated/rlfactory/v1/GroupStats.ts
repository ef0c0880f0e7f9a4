// Original file: proto/rlfactory/v1/rollout.proto


/**
 * Reward statistics of one group, over the trajectories that have a reward (grpo.ts GroupStats).
 */
export interface GroupStats {
  /**
   * Trajectories in the group.
   */
  'count'?: (number);
  /**
   * Trajectories with a reward (the others have none: failed, aborted, or a reward error).
   */
  'scored'?: (number);
  /**
   * Mean of the scored rewards. Absent: none is scored.
   */
  'mean'?: (number | string);
  /**
   * Unbiased (n - 1) standard deviation of the scored rewards; 0 for one. Absent: none is scored.
   */
  'std'?: (number | string);
  /**
   * Smallest scored reward. Absent: none is scored.
   */
  'min'?: (number | string);
  /**
   * Largest scored reward. Absent: none is scored.
   */
  'max'?: (number | string);
  /**
   * The scored rewards are all equal (or fewer than two): every advantage is 0, the group teaches
   * nothing.
   */
  'all_equal'?: (boolean);
  /**
   * Mean turn reward per sampled-turn index (entry K - 1: the K-th sampled turn) over the group's
   * trajectories that carry turn_rewards and reached that turn. Empty: none carries turn_rewards.
   */
  'turn_reward_mean'?: (number | string)[];
  '_mean'?: "mean";
  '_std'?: "std";
  '_min'?: "min";
  '_max'?: "max";
}

/**
 * Reward statistics of one group, over the trajectories that have a reward (grpo.ts GroupStats).
 */
export interface GroupStats__Output {
  /**
   * Trajectories in the group.
   */
  'count': (number);
  /**
   * Trajectories with a reward (the others have none: failed, aborted, or a reward error).
   */
  'scored': (number);
  /**
   * Mean of the scored rewards. Absent: none is scored.
   */
  'mean'?: (number);
  /**
   * Unbiased (n - 1) standard deviation of the scored rewards; 0 for one. Absent: none is scored.
   */
  'std'?: (number);
  /**
   * Smallest scored reward. Absent: none is scored.
   */
  'min'?: (number);
  /**
   * Largest scored reward. Absent: none is scored.
   */
  'max'?: (number);
  /**
   * The scored rewards are all equal (or fewer than two): every advantage is 0, the group teaches
   * nothing.
   */
  'all_equal': (boolean);
  /**
   * Mean turn reward per sampled-turn index (entry K - 1: the K-th sampled turn) over the group's
   * trajectories that carry turn_rewards and reached that turn. Empty: none carries turn_rewards.
   */
  'turn_reward_mean': (number)[];
  '_mean'?: "mean";
  '_std'?: "std";
  '_min'?: "min";
  '_max'?: "max";
}
