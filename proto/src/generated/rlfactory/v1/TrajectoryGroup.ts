// Original file: proto/rlfactory/v1/rollout.proto

import type { Trajectory as _rlfactory_v1_Trajectory, Trajectory__Output as _rlfactory_v1_Trajectory__Output } from '../../rlfactory/v1/Trajectory.ts';
import type { GroupStats as _rlfactory_v1_GroupStats, GroupStats__Output as _rlfactory_v1_GroupStats__Output } from '../../rlfactory/v1/GroupStats.ts';

/**
 * The group_size samples of one task, scored, with GRPO advantages set on each trajectory.
 */
export interface TrajectoryGroup {
  'task_id'?: (string);
  'group_id'?: (string);
  'trajectories'?: (_rlfactory_v1_Trajectory)[];
  'stats'?: (_rlfactory_v1_GroupStats | null);
  /**
   * Trajectories removed because they were stale (config `staleness.on_stale: drop`): the whole group
   * is dropped, so `trajectories` is empty and the stats count none. 0: nothing dropped.
   */
  'dropped_stale'?: (number);
}

/**
 * The group_size samples of one task, scored, with GRPO advantages set on each trajectory.
 */
export interface TrajectoryGroup__Output {
  'task_id': (string);
  'group_id': (string);
  'trajectories': (_rlfactory_v1_Trajectory__Output)[];
  'stats': (_rlfactory_v1_GroupStats__Output | null);
  /**
   * Trajectories removed because they were stale (config `staleness.on_stale: drop`): the whole group
   * is dropped, so `trajectories` is empty and the stats count none. 0: nothing dropped.
   */
  'dropped_stale': (number);
}
