// Original file: proto/rlfactory/v1/judge.proto

import type { JudgeErrorCode as _rlfactory_v1_JudgeErrorCode, JudgeErrorCode__Output as _rlfactory_v1_JudgeErrorCode__Output } from '../../rlfactory/v1/JudgeErrorCode.ts';

export interface JudgeFailure {
  'code'?: (_rlfactory_v1_JudgeErrorCode);
  /**
   * Human-readable reason; never a stack trace.
   */
  'message'?: (string);
}

export interface JudgeFailure__Output {
  'code': (_rlfactory_v1_JudgeErrorCode__Output);
  /**
   * Human-readable reason; never a stack trace.
   */
  'message': (string);
}
