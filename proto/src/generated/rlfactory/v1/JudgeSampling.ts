// Original file: proto/rlfactory/v1/judge.proto

import type { Long } from '@grpc/proto-loader';

export interface JudgeSampling {
  /**
   * Judge model temperature (absent: 0, deterministic and cacheable).
   */
  'temperature'?: (number | string);
  'top_p'?: (number | string);
  'max_tokens'?: (number);
  'seed'?: (number | string | Long);
  '_temperature'?: "temperature";
  '_top_p'?: "top_p";
  '_max_tokens'?: "max_tokens";
  '_seed'?: "seed";
}

export interface JudgeSampling__Output {
  /**
   * Judge model temperature (absent: 0, deterministic and cacheable).
   */
  'temperature'?: (number);
  'top_p'?: (number);
  'max_tokens'?: (number);
  'seed'?: (string);
  '_temperature'?: "temperature";
  '_top_p'?: "top_p";
  '_max_tokens'?: "max_tokens";
  '_seed'?: "seed";
}
