// Original file: proto/rlfactory/v1/rollout.proto

import type { TrajectoryGroup as _rlfactory_v1_TrajectoryGroup, TrajectoryGroup__Output as _rlfactory_v1_TrajectoryGroup__Output } from '../../rlfactory/v1/TrajectoryGroup.ts';

export interface RolloutBatchResponse {
  /**
   * Every group of the request, in order of completion.
   */
  'groups'?: (_rlfactory_v1_TrajectoryGroup)[];
}

export interface RolloutBatchResponse__Output {
  /**
   * Every group of the request, in order of completion.
   */
  'groups': (_rlfactory_v1_TrajectoryGroup__Output)[];
}
