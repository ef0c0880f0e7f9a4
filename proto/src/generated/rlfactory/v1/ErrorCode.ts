// Original file: proto/rlfactory/v1/gateway.proto

/**
 * Why a call failed (as opposed to the tool reporting an error in its result).
 */
export const ErrorCode = {
  /**
   * The call completed; see is_error for the tool's own verdict.
   */
  OK: 'OK',
  /**
   * The deadline passed; the upstream request was cancelled.
   */
  TIMEOUT: 'TIMEOUT',
  /**
   * The upstream server is down, restarting or broke the connection.
   */
  UNAVAILABLE: 'UNAVAILABLE',
  /**
   * The upstream's circuit breaker is open after repeated failures; retry later.
   */
  CIRCUIT_OPEN: 'CIRCUIT_OPEN',
  /**
   * No tool of that name in the catalog.
   */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /**
   * Arguments are not a JSON object or fail the tool's input schema.
   */
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  /**
   * The upstream's concurrency limit and queue are full.
   */
  RATE_LIMITED: 'RATE_LIMITED',
  /**
   * The result exceeded the output cap and could not be truncated.
   */
  OUTPUT_TOO_LARGE: 'OUTPUT_TOO_LARGE',
  /**
   * Anything else; the message says what.
   */
  INTERNAL: 'INTERNAL',
  /**
   * The caller cancelled the call.
   */
  CANCELLED: 'CANCELLED',
  /**
   * The upstream answered with a protocol error (malformed response, JSON-RPC error).
   */
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  /**
   * The arguments exceed the configured size limit.
   */
  ARGUMENTS_TOO_LARGE: 'ARGUMENTS_TOO_LARGE',
  /**
   * The episode id is unknown, malformed, ended or expired.
   */
  EPISODE_NOT_FOUND: 'EPISODE_NOT_FOUND',
  /**
   * The episode existed, but its environment server died or no longer holds it; its state is gone.
   */
  EPISODE_LOST: 'EPISODE_LOST',
  /**
   * The server cannot do this episode operation: a per-episode-instance server configured
   * `fork: refuse`, or one without a snapshot tool asked for a snapshot.
   */
  UNSUPPORTED: 'UNSUPPORTED',
  /**
   * The call's trajectory has spent its budget on this server (a model tool's calls or tokens per
   * trajectory, `trajectory_budget`); the call was not made.
   */
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
} as const;

/**
 * Why a call failed (as opposed to the tool reporting an error in its result).
 */
export type ErrorCode =
  /**
   * The call completed; see is_error for the tool's own verdict.
   */
  | 'OK'
  | 0
  /**
   * The deadline passed; the upstream request was cancelled.
   */
  | 'TIMEOUT'
  | 1
  /**
   * The upstream server is down, restarting or broke the connection.
   */
  | 'UNAVAILABLE'
  | 2
  /**
   * The upstream's circuit breaker is open after repeated failures; retry later.
   */
  | 'CIRCUIT_OPEN'
  | 3
  /**
   * No tool of that name in the catalog.
   */
  | 'UNKNOWN_TOOL'
  | 4
  /**
   * Arguments are not a JSON object or fail the tool's input schema.
   */
  | 'INVALID_ARGUMENTS'
  | 5
  /**
   * The upstream's concurrency limit and queue are full.
   */
  | 'RATE_LIMITED'
  | 6
  /**
   * The result exceeded the output cap and could not be truncated.
   */
  | 'OUTPUT_TOO_LARGE'
  | 7
  /**
   * Anything else; the message says what.
   */
  | 'INTERNAL'
  | 8
  /**
   * The caller cancelled the call.
   */
  | 'CANCELLED'
  | 9
  /**
   * The upstream answered with a protocol error (malformed response, JSON-RPC error).
   */
  | 'UPSTREAM_ERROR'
  | 10
  /**
   * The arguments exceed the configured size limit.
   */
  | 'ARGUMENTS_TOO_LARGE'
  | 11
  /**
   * The episode id is unknown, malformed, ended or expired.
   */
  | 'EPISODE_NOT_FOUND'
  | 12
  /**
   * The episode existed, but its environment server died or no longer holds it; its state is gone.
   */
  | 'EPISODE_LOST'
  | 13
  /**
   * The server cannot do this episode operation: a per-episode-instance server configured
   * `fork: refuse`, or one without a snapshot tool asked for a snapshot.
   */
  | 'UNSUPPORTED'
  | 14
  /**
   * The call's trajectory has spent its budget on this server (a model tool's calls or tokens per
   * trajectory, `trajectory_budget`); the call was not made.
   */
  | 'BUDGET_EXCEEDED'
  | 15

/**
 * Why a call failed (as opposed to the tool reporting an error in its result).
 */
export type ErrorCode__Output = typeof ErrorCode[keyof typeof ErrorCode]
