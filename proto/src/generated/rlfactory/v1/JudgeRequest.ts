// Original file: proto/rlfactory/v1/judge.proto

import type { JudgeMode as _rlfactory_v1_JudgeMode, JudgeMode__Output as _rlfactory_v1_JudgeMode__Output } from '../../rlfactory/v1/JudgeMode.ts';
import type { JudgeSampling as _rlfactory_v1_JudgeSampling, JudgeSampling__Output as _rlfactory_v1_JudgeSampling__Output } from '../../rlfactory/v1/JudgeSampling.ts';

export interface JudgeRequest {
  'mode'?: (_rlfactory_v1_JudgeMode);
  /**
   * The task or question the response answers (required for model modes).
   */
  'task'?: (string);
  /**
   * POINTWISE / REFERENCE / RULE: the text judged (a final answer or a rendered trajectory).
   */
  'response'?: (string);
  /**
   * PAIRWISE (exactly two) / GROUP (1..64): the responses judged.
   */
  'responses'?: (string)[];
  /**
   * Reference answer (required for REFERENCE; optional context elsewhere).
   */
  'reference'?: (string);
  /**
   * Inline rubric text, or the id of a versioned built-in / configured rubric.
   */
  'rubric'?: (string);
  'rubric_id'?: (string);
  /**
   * GROUP: context shared by every response, sent once.
   */
  'prefix'?: (string);
  /**
   * RULE: the grader as JSON text, e.g. {"type":"string_check","operation":"eq"}.
   */
  'grader_json'?: (string);
  /**
   * Self-consistency: ask k times and aggregate (0: 1).
   */
  'samples'?: (number);
  'sampling'?: (_rlfactory_v1_JudgeSampling | null);
  /**
   * Deadline of this request in ms (0: none besides the RPC's own gRPC deadline).
   */
  'deadline_ms'?: (number);
  /**
   * Neither read nor write the cache for this request.
   */
  'no_cache'?: (boolean);
  '_reference'?: "reference";
  '_rubric'?: "rubric";
  '_rubric_id'?: "rubric_id";
  '_prefix'?: "prefix";
}

export interface JudgeRequest__Output {
  'mode': (_rlfactory_v1_JudgeMode__Output);
  /**
   * The task or question the response answers (required for model modes).
   */
  'task': (string);
  /**
   * POINTWISE / REFERENCE / RULE: the text judged (a final answer or a rendered trajectory).
   */
  'response': (string);
  /**
   * PAIRWISE (exactly two) / GROUP (1..64): the responses judged.
   */
  'responses': (string)[];
  /**
   * Reference answer (required for REFERENCE; optional context elsewhere).
   */
  'reference'?: (string);
  /**
   * Inline rubric text, or the id of a versioned built-in / configured rubric.
   */
  'rubric'?: (string);
  'rubric_id'?: (string);
  /**
   * GROUP: context shared by every response, sent once.
   */
  'prefix'?: (string);
  /**
   * RULE: the grader as JSON text, e.g. {"type":"string_check","operation":"eq"}.
   */
  'grader_json': (string);
  /**
   * Self-consistency: ask k times and aggregate (0: 1).
   */
  'samples': (number);
  'sampling': (_rlfactory_v1_JudgeSampling__Output | null);
  /**
   * Deadline of this request in ms (0: none besides the RPC's own gRPC deadline).
   */
  'deadline_ms': (number);
  /**
   * Neither read nor write the cache for this request.
   */
  'no_cache': (boolean);
  '_reference'?: "reference";
  '_rubric'?: "rubric";
  '_rubric_id'?: "rubric_id";
  '_prefix'?: "prefix";
}
