// Original file: proto/rlfactory/v1/rollout.proto


/**
 * The service's current weight version and its staleness rule (the config's `staleness` block).
 */
export interface PolicyVersionState {
  /**
   * Absent: never set (requests record their own policy_version, or none).
   */
  'version'?: (string);
  /**
   * A trajectory sampled more than this many versions behind the current one is stale. Absent: no
   * staleness check. Versions are compared only when both are integers.
   */
  'max_staleness'?: (number);
  /**
   * `flag` (stale = true on the trajectory) or `drop` (the group's trajectories are removed).
   */
  'on_stale'?: (string);
  '_version'?: "version";
  '_max_staleness'?: "max_staleness";
}

/**
 * The service's current weight version and its staleness rule (the config's `staleness` block).
 */
export interface PolicyVersionState__Output {
  /**
   * Absent: never set (requests record their own policy_version, or none).
   */
  'version'?: (string);
  /**
   * A trajectory sampled more than this many versions behind the current one is stale. Absent: no
   * staleness check. Versions are compared only when both are integers.
   */
  'max_staleness'?: (number);
  /**
   * `flag` (stale = true on the trajectory) or `drop` (the group's trajectories are removed).
   */
  'on_stale': (string);
  '_version'?: "version";
  '_max_staleness'?: "max_staleness";
}
