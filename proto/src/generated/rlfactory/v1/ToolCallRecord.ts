// Original file: proto/rlfactory/v1/rollout.proto

import type { ToolCallUsage as _rlfactory_v1_ToolCallUsage, ToolCallUsage__Output as _rlfactory_v1_ToolCallUsage__Output } from '../../rlfactory/v1/ToolCallUsage.ts';

/**
 * One tool call the policy made and what it got back.
 */
export interface ToolCallRecord {
  /**
   * The tool's name as the model called it.
   */
  'name'?: (string);
  /**
   * The arguments the model gave, as JSON text (empty: none could be parsed).
   */
  'arguments_json'?: (string);
  /**
   * The result text shown to the model (before any token-budget truncation).
   */
  'result'?: (string);
  'latency_ms'?: (number | string);
  /**
   * Machine-readable failure code (`timeout`, `tool_error`, `parse_error`, ...). Absent: success.
   */
  'error_code'?: (string);
  /**
   * The call failed (exactly when error_code is set).
   */
  'is_error'?: (boolean);
  /**
   * Index into Trajectory.turns of the sampled turn that made the call. Absent: unknown.
   */
  'turn'?: (number);
  /**
   * What the call spent on a model (a model tool); absent when it spent nothing it reported.
   */
  'usage'?: (_rlfactory_v1_ToolCallUsage | null);
  '_error_code'?: "error_code";
  '_turn'?: "turn";
  '_usage'?: "usage";
}

/**
 * One tool call the policy made and what it got back.
 */
export interface ToolCallRecord__Output {
  /**
   * The tool's name as the model called it.
   */
  'name': (string);
  /**
   * The arguments the model gave, as JSON text (empty: none could be parsed).
   */
  'arguments_json': (string);
  /**
   * The result text shown to the model (before any token-budget truncation).
   */
  'result': (string);
  'latency_ms': (number);
  /**
   * Machine-readable failure code (`timeout`, `tool_error`, `parse_error`, ...). Absent: success.
   */
  'error_code'?: (string);
  /**
   * The call failed (exactly when error_code is set).
   */
  'is_error': (boolean);
  /**
   * Index into Trajectory.turns of the sampled turn that made the call. Absent: unknown.
   */
  'turn'?: (number);
  /**
   * What the call spent on a model (a model tool); absent when it spent nothing it reported.
   */
  'usage'?: (_rlfactory_v1_ToolCallUsage__Output | null);
  '_error_code'?: "error_code";
  '_turn'?: "turn";
  '_usage'?: "usage";
}
