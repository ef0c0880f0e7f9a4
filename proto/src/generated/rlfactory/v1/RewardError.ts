// Original file: proto/rlfactory/v1/rollout.proto


/**
 * Why scoring failed for infrastructure reasons (never a silent reward of 0).
 */
export interface RewardError {
  /**
   * The reward component that failed (`judge`, `tool_verified`, ...).
   */
  'component'?: (string);
  /**
   * Machine-readable code (`TIMEOUT`, `UNAVAILABLE`, `JUDGE_PARSE_ERROR`, ...).
   */
  'code'?: (string);
  'message'?: (string);
}

/**
 * Why scoring failed for infrastructure reasons (never a silent reward of 0).
 */
export interface RewardError__Output {
  /**
   * The reward component that failed (`judge`, `tool_verified`, ...).
   */
  'component': (string);
  /**
   * Machine-readable code (`TIMEOUT`, `UNAVAILABLE`, `JUDGE_PARSE_ERROR`, ...).
   */
  'code': (string);
  'message': (string);
}
