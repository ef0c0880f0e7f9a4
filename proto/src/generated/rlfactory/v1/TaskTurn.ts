// Original file: proto/rlfactory/v1/rollout.proto

import type { ToolNames as _rlfactory_v1_ToolNames, ToolNames__Output as _rlfactory_v1_ToolNames__Output } from '../../rlfactory/v1/ToolNames.ts';

/**
 * A later user message of a scripted conversation (a task's `turns`).
 */
export interface TaskTurn {
  /**
   * The user message; at least one character.
   */
  'content'?: (string);
  /**
   * Tool names offered from this turn on. Absent: the tools offered so far stay.
   */
  'tools'?: (_rlfactory_v1_ToolNames | null);
  /**
   * What a per-turn reward compares this turn's outcome against, as JSON text. Empty: none.
   */
  'ground_truth_json'?: (string);
}

/**
 * A later user message of a scripted conversation (a task's `turns`).
 */
export interface TaskTurn__Output {
  /**
   * The user message; at least one character.
   */
  'content': (string);
  /**
   * Tool names offered from this turn on. Absent: the tools offered so far stay.
   */
  'tools': (_rlfactory_v1_ToolNames__Output | null);
  /**
   * What a per-turn reward compares this turn's outcome against, as JSON text. Empty: none.
   */
  'ground_truth_json': (string);
}
