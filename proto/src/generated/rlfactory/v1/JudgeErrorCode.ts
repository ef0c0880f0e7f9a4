// Original file: proto/rlfactory/v1/judge.proto

/**
 * Why a judgment failed (HTTP status of the same failure in brackets).
 */
export const JudgeErrorCode = {
  JUDGE_ERROR_UNSPECIFIED: 'JUDGE_ERROR_UNSPECIFIED',
  /**
   * The request is malformed (400).
   */
  JUDGE_ERROR_INVALID_REQUEST: 'JUDGE_ERROR_INVALID_REQUEST',
  /**
   * The judge model's output could not be read as a score, after retries (502).
   */
  JUDGE_ERROR_PARSE_ERROR: 'JUDGE_ERROR_PARSE_ERROR',
  /**
   * GROUP: the judge returned a different number of scores than responses, after retries (502).
   */
  JUDGE_ERROR_COUNT_MISMATCH: 'JUDGE_ERROR_COUNT_MISMATCH',
  /**
   * No backend configured, or none reachable (503).
   */
  JUDGE_ERROR_BACKEND_UNAVAILABLE: 'JUDGE_ERROR_BACKEND_UNAVAILABLE',
  /**
   * The backend answered with an error status (502).
   */
  JUDGE_ERROR_BACKEND_ERROR: 'JUDGE_ERROR_BACKEND_ERROR',
  /**
   * The circuit breaker is open after repeated backend failures (503).
   */
  JUDGE_ERROR_CIRCUIT_OPEN: 'JUDGE_ERROR_CIRCUIT_OPEN',
  /**
   * The request's deadline passed (504).
   */
  JUDGE_ERROR_TIMEOUT: 'JUDGE_ERROR_TIMEOUT',
  /**
   * The caller cancelled (499).
   */
  JUDGE_ERROR_CANCELLED: 'JUDGE_ERROR_CANCELLED',
  /**
   * A bug (500).
   */
  JUDGE_ERROR_INTERNAL: 'JUDGE_ERROR_INTERNAL',
} as const;

/**
 * Why a judgment failed (HTTP status of the same failure in brackets).
 */
export type JudgeErrorCode =
  | 'JUDGE_ERROR_UNSPECIFIED'
  | 0
  /**
   * The request is malformed (400).
   */
  | 'JUDGE_ERROR_INVALID_REQUEST'
  | 1
  /**
   * The judge model's output could not be read as a score, after retries (502).
   */
  | 'JUDGE_ERROR_PARSE_ERROR'
  | 2
  /**
   * GROUP: the judge returned a different number of scores than responses, after retries (502).
   */
  | 'JUDGE_ERROR_COUNT_MISMATCH'
  | 3
  /**
   * No backend configured, or none reachable (503).
   */
  | 'JUDGE_ERROR_BACKEND_UNAVAILABLE'
  | 4
  /**
   * The backend answered with an error status (502).
   */
  | 'JUDGE_ERROR_BACKEND_ERROR'
  | 5
  /**
   * The circuit breaker is open after repeated backend failures (503).
   */
  | 'JUDGE_ERROR_CIRCUIT_OPEN'
  | 6
  /**
   * The request's deadline passed (504).
   */
  | 'JUDGE_ERROR_TIMEOUT'
  | 7
  /**
   * The caller cancelled (499).
   */
  | 'JUDGE_ERROR_CANCELLED'
  | 8
  /**
   * A bug (500).
   */
  | 'JUDGE_ERROR_INTERNAL'
  | 9

/**
 * Why a judgment failed (HTTP status of the same failure in brackets).
 */
export type JudgeErrorCode__Output = typeof JudgeErrorCode[keyof typeof JudgeErrorCode]
