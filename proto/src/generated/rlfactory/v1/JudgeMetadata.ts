// Original file: proto/rlfactory/v1/judge.proto

import type { Long } from '@grpc/proto-loader';

export interface JudgeMetadata {
  /**
   * The request's mode, as in the HTTP form: "pointwise", "reference", "pairwise", "group", "rule".
   */
  'mode'?: (string);
  /**
   * Backend model name ("rule" for rule graders).
   */
  'judge_model'?: (string);
  /**
   * Rubric/template id and version, e.g. "pointwise-default@2".
   */
  'template'?: (string);
  'latency_ms'?: (number | string);
  'prompt_tokens'?: (number | string | Long);
  'completion_tokens'?: (number | string | Long);
  /**
   * Judge calls made (samples x orders x retries).
   */
  'calls'?: (number);
  'samples'?: (number);
  'cached'?: (boolean);
  /**
   * Per-sample scores before aggregation.
   */
  'sample_scores'?: (number | string)[];
  'explanation'?: (string);
  /**
   * PAIRWISE: the two orders disagreed (a position flip, scored as a tie); absent for other modes.
   */
  'pairwise_flip'?: (boolean);
  /**
   * What the judge noticed along the way (score-like tokens stripped from the response, the raw
   * pairwise verdicts, ...), human-readable.
   */
  'notes'?: (string)[];
  '_pairwise_flip'?: "pairwise_flip";
}

export interface JudgeMetadata__Output {
  /**
   * The request's mode, as in the HTTP form: "pointwise", "reference", "pairwise", "group", "rule".
   */
  'mode': (string);
  /**
   * Backend model name ("rule" for rule graders).
   */
  'judge_model': (string);
  /**
   * Rubric/template id and version, e.g. "pointwise-default@2".
   */
  'template': (string);
  'latency_ms': (number);
  'prompt_tokens': (string);
  'completion_tokens': (string);
  /**
   * Judge calls made (samples x orders x retries).
   */
  'calls': (number);
  'samples': (number);
  'cached': (boolean);
  /**
   * Per-sample scores before aggregation.
   */
  'sample_scores': (number)[];
  'explanation': (string);
  /**
   * PAIRWISE: the two orders disagreed (a position flip, scored as a tie); absent for other modes.
   */
  'pairwise_flip'?: (boolean);
  /**
   * What the judge noticed along the way (score-like tokens stripped from the response, the raw
   * pairwise verdicts, ...), human-readable.
   */
  'notes': (string)[];
  '_pairwise_flip'?: "pairwise_flip";
}
