// Original file: proto/rlfactory/v1/rollout.proto

import type { ChatMessage as _rlfactory_v1_ChatMessage, ChatMessage__Output as _rlfactory_v1_ChatMessage__Output } from '../../rlfactory/v1/ChatMessage.ts';
import type { ToolNames as _rlfactory_v1_ToolNames, ToolNames__Output as _rlfactory_v1_ToolNames__Output } from '../../rlfactory/v1/ToolNames.ts';
import type { TaskTurn as _rlfactory_v1_TaskTurn, TaskTurn__Output as _rlfactory_v1_TaskTurn__Output } from '../../rlfactory/v1/TaskTurn.ts';
import type { UserSimulator as _rlfactory_v1_UserSimulator, UserSimulator__Output as _rlfactory_v1_UserSimulator__Output } from '../../rlfactory/v1/UserSimulator.ts';
import type { TaskEnvironment as _rlfactory_v1_TaskEnvironment, TaskEnvironment__Output as _rlfactory_v1_TaskEnvironment__Output } from '../../rlfactory/v1/TaskEnvironment.ts';

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
  /**
   * The tool names (`server__tool`, or aliases) this task offers on its first turn, instead of every
   * configured tool. Absent: every configured tool (a task with tool_aliases: its aliases).
   */
  'tools'?: (_rlfactory_v1_ToolNames | null);
  /**
   * Later user messages of a scripted conversation: each is appended when the model ends a turn
   * without a tool call. Empty: none.
   */
  'turns'?: (_rlfactory_v1_TaskTurn)[];
  /**
   * The alternative to `turns`: an LLM user simulator writes the later user messages. Absent: none.
   */
  'user_simulator'?: (_rlfactory_v1_UserSimulator | null);
  /**
   * The task's own stateful environment: one episode per GRPO group, forked into its samples.
   * Absent: none.
   */
  'environment'?: (_rlfactory_v1_TaskEnvironment | null);
  /**
   * Names the model sees and calls -> the gateway tools they run (`cd` -> `bfcl__cd`). Empty: none.
   */
  'tool_aliases'?: ({[key: string]: string});
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
  /**
   * The tool names (`server__tool`, or aliases) this task offers on its first turn, instead of every
   * configured tool. Absent: every configured tool (a task with tool_aliases: its aliases).
   */
  'tools': (_rlfactory_v1_ToolNames__Output | null);
  /**
   * Later user messages of a scripted conversation: each is appended when the model ends a turn
   * without a tool call. Empty: none.
   */
  'turns': (_rlfactory_v1_TaskTurn__Output)[];
  /**
   * The alternative to `turns`: an LLM user simulator writes the later user messages. Absent: none.
   */
  'user_simulator': (_rlfactory_v1_UserSimulator__Output | null);
  /**
   * The task's own stateful environment: one episode per GRPO group, forked into its samples.
   * Absent: none.
   */
  'environment': (_rlfactory_v1_TaskEnvironment__Output | null);
  /**
   * Names the model sees and calls -> the gateway tools they run (`cd` -> `bfcl__cd`). Empty: none.
   */
  'tool_aliases': ({[key: string]: string});
}
