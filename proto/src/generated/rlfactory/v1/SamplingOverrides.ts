// Original file: proto/rlfactory/v1/rollout.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Per-request sampling overrides; a field that is absent keeps the server's configured value.
 */
export interface SamplingOverrides {
  'temperature'?: (number | string);
  'top_p'?: (number | string);
  /**
   * -1: no top-k.
   */
  'top_k'?: (number);
  'min_p'?: (number | string);
  /**
   * Cap on generated tokens per model turn.
   */
  'max_tokens'?: (number);
  /**
   * Stop strings (the engine keeps them in the output). Empty: keep the configured ones.
   */
  'stop'?: (string)[];
  'repetition_penalty'?: (number | string);
  /**
   * Per-request seed, for engines that support one.
   */
  'seed'?: (number | string | Long);
  '_temperature'?: "temperature";
  '_top_p'?: "top_p";
  '_top_k'?: "top_k";
  '_min_p'?: "min_p";
  '_max_tokens'?: "max_tokens";
  '_repetition_penalty'?: "repetition_penalty";
  '_seed'?: "seed";
}

/**
 * Per-request sampling overrides; a field that is absent keeps the server's configured value.
 */
export interface SamplingOverrides__Output {
  'temperature'?: (number);
  'top_p'?: (number);
  /**
   * -1: no top-k.
   */
  'top_k'?: (number);
  'min_p'?: (number);
  /**
   * Cap on generated tokens per model turn.
   */
  'max_tokens'?: (number);
  /**
   * Stop strings (the engine keeps them in the output). Empty: keep the configured ones.
   */
  'stop': (string)[];
  'repetition_penalty'?: (number);
  /**
   * Per-request seed, for engines that support one.
   */
  'seed'?: (string);
  '_temperature'?: "temperature";
  '_top_p'?: "top_p";
  '_top_k'?: "top_k";
  '_min_p'?: "min_p";
  '_max_tokens'?: "max_tokens";
  '_repetition_penalty'?: "repetition_penalty";
  '_seed'?: "seed";
}
