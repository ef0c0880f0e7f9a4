// Original file: proto/rlfactory/v1/rollout.proto

import type { ChatMessage as _rlfactory_v1_ChatMessage, ChatMessage__Output as _rlfactory_v1_ChatMessage__Output } from '../../rlfactory/v1/ChatMessage.ts';

/**
 * One training/evaluation task, as in the Search-R1/verl parquet row.
 */
export interface Task {
  /**
   * Unique within the request; groups and trajectories carry it as task_id.
   */
  'id'?: (string);
  /**
   * Dataset name (`hotpotqa`, `nq`, ...): rewards and reports group by it. Empty: `unknown`.
   */
  'data_source'?: (string);
  /**
   * The conversation the policy starts from (system + user message, usually); at least one message.
   */
  'prompt'?: (_rlfactory_v1_ChatMessage)[];
  /**
   * What rule rewards compare against, as JSON text: a string, a list of strings, Search-R1's
   * `{"target": [...]}`, or a tool-verified reward's own shape. Empty: none.
   */
  'ground_truth_json'?: (string);
  /**
   * Free-form task metadata, as a JSON object in text. Empty: `{}`.
   */
  'extra_info_json'?: (string);
}

/**
 * One training/evaluation task, as in the Search-R1/verl parquet row.
 */
export interface Task__Output {
  /**
   * Unique within the request; groups and trajectories carry it as task_id.
   */
  'id': (string);
  /**
   * Dataset name (`hotpotqa`, `nq`, ...): rewards and reports group by it. Empty: `unknown`.
   */
  'data_source': (string);
  /**
   * The conversation the policy starts from (system + user message, usually); at least one message.
   */
  'prompt': (_rlfactory_v1_ChatMessage__Output)[];
  /**
   * What rule rewards compare against, as JSON text: a string, a list of strings, Search-R1's
   * `{"target": [...]}`, or a tool-verified reward's own shape. Empty: none.
   */
  'ground_truth_json': (string);
  /**
   * Free-form task metadata, as a JSON object in text. Empty: `{}`.
   */
  'extra_info_json': (string);
}
