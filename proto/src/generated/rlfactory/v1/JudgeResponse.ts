// Original file: proto/rlfactory/v1/judge.proto

import type { JudgeScore as _rlfactory_v1_JudgeScore, JudgeScore__Output as _rlfactory_v1_JudgeScore__Output } from '../../rlfactory/v1/JudgeScore.ts';
import type { JudgeFailure as _rlfactory_v1_JudgeFailure, JudgeFailure__Output as _rlfactory_v1_JudgeFailure__Output } from '../../rlfactory/v1/JudgeFailure.ts';

export interface JudgeResponse {
  'score'?: (_rlfactory_v1_JudgeScore | null);
  'error'?: (_rlfactory_v1_JudgeFailure | null);
  'outcome'?: "score"|"error";
}

export interface JudgeResponse__Output {
  'score'?: (_rlfactory_v1_JudgeScore__Output | null);
  'error'?: (_rlfactory_v1_JudgeFailure__Output | null);
  'outcome'?: "score"|"error";
}
