// Original file: proto/rlfactory/v1/judge.proto

import type { JudgeWinner as _rlfactory_v1_JudgeWinner, JudgeWinner__Output as _rlfactory_v1_JudgeWinner__Output } from '../../rlfactory/v1/JudgeWinner.ts';
import type { JudgeMetadata as _rlfactory_v1_JudgeMetadata, JudgeMetadata__Output as _rlfactory_v1_JudgeMetadata__Output } from '../../rlfactory/v1/JudgeMetadata.ts';

export interface JudgeScore {
  /**
   * In [0, 1]. POINTWISE/REFERENCE/RULE: the score; PAIRWISE: P(first wins), 0.5 for a tie; GROUP: mean.
   */
  'score'?: (number | string);
  /**
   * GROUP: one score per response, in request order.
   */
  'scores'?: (number | string)[];
  /**
   * PAIRWISE: which response won.
   */
  'winner'?: (_rlfactory_v1_JudgeWinner);
  'metadata'?: (_rlfactory_v1_JudgeMetadata | null);
}

export interface JudgeScore__Output {
  /**
   * In [0, 1]. POINTWISE/REFERENCE/RULE: the score; PAIRWISE: P(first wins), 0.5 for a tie; GROUP: mean.
   */
  'score': (number);
  /**
   * GROUP: one score per response, in request order.
   */
  'scores': (number)[];
  /**
   * PAIRWISE: which response won.
   */
  'winner': (_rlfactory_v1_JudgeWinner__Output);
  'metadata': (_rlfactory_v1_JudgeMetadata__Output | null);
}
