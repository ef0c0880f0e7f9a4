// Original file: proto/rlfactory/v1/rollout.proto

export const TrajectoryStatus = {
  /**
   * Never sent; a decoder rejects it.
   */
  TRAJECTORY_STATUS_UNSPECIFIED: 'TRAJECTORY_STATUS_UNSPECIFIED',
  /**
   * The model finished (an answer, an end token, or a stop).
   */
  TRAJECTORY_STATUS_COMPLETED: 'TRAJECTORY_STATUS_COMPLETED',
  /**
   * A limit cut it short (max turns, context length, response token budget); status_reason says which.
   */
  TRAJECTORY_STATUS_TRUNCATED: 'TRAJECTORY_STATUS_TRUNCATED',
  /**
   * The request was cancelled or its deadline passed while this trajectory was in flight.
   */
  TRAJECTORY_STATUS_ABORTED: 'TRAJECTORY_STATUS_ABORTED',
  /**
   * An infrastructure failure (inference server down, ...); status_reason says what.
   */
  TRAJECTORY_STATUS_FAILED: 'TRAJECTORY_STATUS_FAILED',
} as const;

export type TrajectoryStatus =
  /**
   * Never sent; a decoder rejects it.
   */
  | 'TRAJECTORY_STATUS_UNSPECIFIED'
  | 0
  /**
   * The model finished (an answer, an end token, or a stop).
   */
  | 'TRAJECTORY_STATUS_COMPLETED'
  | 1
  /**
   * A limit cut it short (max turns, context length, response token budget); status_reason says which.
   */
  | 'TRAJECTORY_STATUS_TRUNCATED'
  | 2
  /**
   * The request was cancelled or its deadline passed while this trajectory was in flight.
   */
  | 'TRAJECTORY_STATUS_ABORTED'
  | 3
  /**
   * An infrastructure failure (inference server down, ...); status_reason says what.
   */
  | 'TRAJECTORY_STATUS_FAILED'
  | 4

export type TrajectoryStatus__Output = typeof TrajectoryStatus[keyof typeof TrajectoryStatus]
