// Original file: proto/rlfactory/v1/rollout.proto

import type { Turn as _rlfactory_v1_Turn, Turn__Output as _rlfactory_v1_Turn__Output } from '../../rlfactory/v1/Turn.ts';
import type { ToolCallRecord as _rlfactory_v1_ToolCallRecord, ToolCallRecord__Output as _rlfactory_v1_ToolCallRecord__Output } from '../../rlfactory/v1/ToolCallRecord.ts';
import type { RewardError as _rlfactory_v1_RewardError, RewardError__Output as _rlfactory_v1_RewardError__Output } from '../../rlfactory/v1/RewardError.ts';
import type { TrajectoryStatus as _rlfactory_v1_TrajectoryStatus, TrajectoryStatus__Output as _rlfactory_v1_TrajectoryStatus__Output } from '../../rlfactory/v1/TrajectoryStatus.ts';
import type { TrajectoryImage as _rlfactory_v1_TrajectoryImage, TrajectoryImage__Output as _rlfactory_v1_TrajectoryImage__Output } from '../../rlfactory/v1/TrajectoryImage.ts';

/**
 * One rollout: the JSON trajectory record of trajectory.ts, field for field.
 */
export interface Trajectory {
  /**
   * Version of the record layout (trajectory.ts TRAJECTORY_SCHEMA_VERSION).
   */
  'schema_version'?: (number);
  'task_id'?: (string);
  'group_id'?: (string);
  /**
   * Index of this sample within its group, 0 to group_size - 1.
   */
  'sample_index'?: (number);
  /**
   * Weights the rollout started with: a trainer step as decimal text (decoded back to a number), or
   * an engine's version string. Absent: unknown.
   */
  'policy_version'?: (string);
  /**
   * Token ids of the rendered prompt (at least one).
   */
  'prompt_ids'?: (number)[];
  /**
   * Every token after the prompt: sampled turns and observation turns, in order.
   */
  'response_ids'?: (number)[];
  /**
   * One per response id: 1 on sampled tokens (trained on), 0 on observation tokens.
   */
  'loss_mask'?: (number)[];
  /**
   * One per response id: the sampler's logprob on sampled tokens, 0.0 on observation tokens. float32,
   * which is what inference engines compute and return; the JSON record's float64 values are rounded
   * to the nearest float32 on the wire.
   */
  'rollout_logprobs'?: (number | string)[];
  /**
   * The turns, covering response_ids end to end without gaps.
   */
  'turns'?: (_rlfactory_v1_Turn)[];
  'tool_calls'?: (_rlfactory_v1_ToolCallRecord)[];
  /**
   * Absent when not scored, or when scoring hit an infrastructure failure (see reward_error).
   */
  'reward'?: (number | string);
  /**
   * Each reward component's score (`em`, `format`, `judge`, ...).
   */
  'reward_components'?: ({[key: string]: number | string});
  /**
   * Set when scoring failed for infrastructure reasons (judge down, verify tool timed out).
   */
  'reward_error'?: (_rlfactory_v1_RewardError | null);
  /**
   * Optional per-turn process rewards, one per turn (0 on observation turns). Empty: none.
   */
  'turn_rewards'?: (number | string)[];
  /**
   * GRPO group-normalised advantage. Absent: the group could not be normalised (e.g. no reward).
   */
  'advantage'?: (number | string);
  'status'?: (_rlfactory_v1_TrajectoryStatus);
  /**
   * Why it ended as it did (`max_turns`, `context_length`, an error message, ...). Absent: none.
   */
  'status_reason'?: (string);
  /**
   * Milliseconds by phase (`generate_ms`, `tool_ms`, `reward_ms`, `total_ms`, ...).
   */
  'timings'?: ({[key: string]: number | string});
  /**
   * Free-form metadata, as a JSON object in text. Empty: none.
   */
  'metadata_json'?: (string);
  /**
   * Sampled more than `staleness.max_staleness` versions behind the service's current version when
   * its group finished (config `staleness.on_stale: flag`). Trainers may skip or down-weight it.
   */
  'stale'?: (boolean);
  /**
   * Which logprobs rollout_logprobs are (config `inference.logprobs_mode`): `raw` (temperature 1,
   * vLLM's default `--logprobs-mode raw_logprobs`) or `processed` (of the distribution sampled from,
   * after temperature). Absent: unknown.
   */
  'logprobs_kind'?: (string);
  /**
   * The temperature the sampled turns were drawn at. Absent: unknown.
   */
  'sampling_temperature'?: (number | string);
  /**
   * Tool-result images in context order, each stored by content hash beside the record. Empty: none.
   */
  'images'?: (_rlfactory_v1_TrajectoryImage)[];
  '_policy_version'?: "policy_version";
  '_reward'?: "reward";
  '_advantage'?: "advantage";
  '_status_reason'?: "status_reason";
  '_logprobs_kind'?: "logprobs_kind";
  '_sampling_temperature'?: "sampling_temperature";
}

/**
 * One rollout: the JSON trajectory record of trajectory.ts, field for field.
 */
export interface Trajectory__Output {
  /**
   * Version of the record layout (trajectory.ts TRAJECTORY_SCHEMA_VERSION).
   */
  'schema_version': (number);
  'task_id': (string);
  'group_id': (string);
  /**
   * Index of this sample within its group, 0 to group_size - 1.
   */
  'sample_index': (number);
  /**
   * Weights the rollout started with: a trainer step as decimal text (decoded back to a number), or
   * an engine's version string. Absent: unknown.
   */
  'policy_version'?: (string);
  /**
   * Token ids of the rendered prompt (at least one).
   */
  'prompt_ids': (number)[];
  /**
   * Every token after the prompt: sampled turns and observation turns, in order.
   */
  'response_ids': (number)[];
  /**
   * One per response id: 1 on sampled tokens (trained on), 0 on observation tokens.
   */
  'loss_mask': (number)[];
  /**
   * One per response id: the sampler's logprob on sampled tokens, 0.0 on observation tokens. float32,
   * which is what inference engines compute and return; the JSON record's float64 values are rounded
   * to the nearest float32 on the wire.
   */
  'rollout_logprobs': (number)[];
  /**
   * The turns, covering response_ids end to end without gaps.
   */
  'turns': (_rlfactory_v1_Turn__Output)[];
  'tool_calls': (_rlfactory_v1_ToolCallRecord__Output)[];
  /**
   * Absent when not scored, or when scoring hit an infrastructure failure (see reward_error).
   */
  'reward'?: (number);
  /**
   * Each reward component's score (`em`, `format`, `judge`, ...).
   */
  'reward_components': ({[key: string]: number});
  /**
   * Set when scoring failed for infrastructure reasons (judge down, verify tool timed out).
   */
  'reward_error': (_rlfactory_v1_RewardError__Output | null);
  /**
   * Optional per-turn process rewards, one per turn (0 on observation turns). Empty: none.
   */
  'turn_rewards': (number)[];
  /**
   * GRPO group-normalised advantage. Absent: the group could not be normalised (e.g. no reward).
   */
  'advantage'?: (number);
  'status': (_rlfactory_v1_TrajectoryStatus__Output);
  /**
   * Why it ended as it did (`max_turns`, `context_length`, an error message, ...). Absent: none.
   */
  'status_reason'?: (string);
  /**
   * Milliseconds by phase (`generate_ms`, `tool_ms`, `reward_ms`, `total_ms`, ...).
   */
  'timings': ({[key: string]: number});
  /**
   * Free-form metadata, as a JSON object in text. Empty: none.
   */
  'metadata_json': (string);
  /**
   * Sampled more than `staleness.max_staleness` versions behind the service's current version when
   * its group finished (config `staleness.on_stale: flag`). Trainers may skip or down-weight it.
   */
  'stale': (boolean);
  /**
   * Which logprobs rollout_logprobs are (config `inference.logprobs_mode`): `raw` (temperature 1,
   * vLLM's default `--logprobs-mode raw_logprobs`) or `processed` (of the distribution sampled from,
   * after temperature). Absent: unknown.
   */
  'logprobs_kind'?: (string);
  /**
   * The temperature the sampled turns were drawn at. Absent: unknown.
   */
  'sampling_temperature'?: (number);
  /**
   * Tool-result images in context order, each stored by content hash beside the record. Empty: none.
   */
  'images': (_rlfactory_v1_TrajectoryImage__Output)[];
  '_policy_version'?: "policy_version";
  '_reward'?: "reward";
  '_advantage'?: "advantage";
  '_status_reason'?: "status_reason";
  '_logprobs_kind'?: "logprobs_kind";
  '_sampling_temperature'?: "sampling_temperature";
}
