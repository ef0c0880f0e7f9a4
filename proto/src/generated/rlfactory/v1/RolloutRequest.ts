// Original file: proto/rlfactory/v1/rollout.proto

import type { Task as _rlfactory_v1_Task, Task__Output as _rlfactory_v1_Task__Output } from '../../rlfactory/v1/Task.ts';
import type { SamplingOverrides as _rlfactory_v1_SamplingOverrides, SamplingOverrides__Output as _rlfactory_v1_SamplingOverrides__Output } from '../../rlfactory/v1/SamplingOverrides.ts';
import type { InferenceTarget as _rlfactory_v1_InferenceTarget, InferenceTarget__Output as _rlfactory_v1_InferenceTarget__Output } from '../../rlfactory/v1/InferenceTarget.ts';

export interface RolloutRequest {
  /**
   * The tasks to roll out; at least one. Task ids must be unique within the request.
   */
  'tasks'?: (_rlfactory_v1_Task)[];
  /**
   * Samples per task (GRPO group size), 1 to 1024. Absent: the server's configured group size.
   */
  'group_size'?: (number);
  /**
   * Overrides of the server's configured sampling parameters for this request (absent: none).
   */
  'sampling'?: (_rlfactory_v1_SamplingOverrides | null);
  /**
   * Cap on model turns per trajectory, at least 1. Absent: the server's configured max turns.
   */
  'max_turns'?: (number);
  /**
   * Weight version the caller expects (a trainer step as decimal text, or an engine's version
   * string). Recorded on trajectories whose sampler reports none. Absent: none.
   */
  'policy_version'?: (string);
  /**
   * Where to generate: the training engine's own inference servers (its vLLM/SGLang, serving the
   * weights it trains). Absent: the servers of the service's config.
   */
  'inference'?: (_rlfactory_v1_InferenceTarget | null);
  '_group_size'?: "group_size";
  '_max_turns'?: "max_turns";
  '_policy_version'?: "policy_version";
}

export interface RolloutRequest__Output {
  /**
   * The tasks to roll out; at least one. Task ids must be unique within the request.
   */
  'tasks': (_rlfactory_v1_Task__Output)[];
  /**
   * Samples per task (GRPO group size), 1 to 1024. Absent: the server's configured group size.
   */
  'group_size'?: (number);
  /**
   * Overrides of the server's configured sampling parameters for this request (absent: none).
   */
  'sampling': (_rlfactory_v1_SamplingOverrides__Output | null);
  /**
   * Cap on model turns per trajectory, at least 1. Absent: the server's configured max turns.
   */
  'max_turns'?: (number);
  /**
   * Weight version the caller expects (a trainer step as decimal text, or an engine's version
   * string). Recorded on trajectories whose sampler reports none. Absent: none.
   */
  'policy_version'?: (string);
  /**
   * Where to generate: the training engine's own inference servers (its vLLM/SGLang, serving the
   * weights it trains). Absent: the servers of the service's config.
   */
  'inference': (_rlfactory_v1_InferenceTarget__Output | null);
  '_group_size'?: "group_size";
  '_max_turns'?: "max_turns";
  '_policy_version'?: "policy_version";
}
