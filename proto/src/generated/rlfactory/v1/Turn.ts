// Original file: proto/rlfactory/v1/rollout.proto

import type { TurnKind as _rlfactory_v1_TurnKind, TurnKind__Output as _rlfactory_v1_TurnKind__Output } from '../../rlfactory/v1/TurnKind.ts';

/**
 * A contiguous span [start, end) of response_ids.
 */
export interface Turn {
  'kind'?: (_rlfactory_v1_TurnKind);
  /**
   * First index in response_ids.
   */
  'start'?: (number);
  /**
   * One past the last index in response_ids.
   */
  'end'?: (number);
  /**
   * Weight version the sampler reported for this turn (sampled turns, async engines). Absent: none.
   */
  'policy_version'?: (string);
  '_policy_version'?: "policy_version";
}

/**
 * A contiguous span [start, end) of response_ids.
 */
export interface Turn__Output {
  'kind': (_rlfactory_v1_TurnKind__Output);
  /**
   * First index in response_ids.
   */
  'start': (number);
  /**
   * One past the last index in response_ids.
   */
  'end': (number);
  /**
   * Weight version the sampler reported for this turn (sampled turns, async engines). Absent: none.
   */
  'policy_version'?: (string);
  '_policy_version'?: "policy_version";
}
