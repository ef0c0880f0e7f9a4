// Original file: proto/rlfactory/v1/rollout.proto

export const TurnKind = {
  /**
   * Never sent; a decoder rejects it.
   */
  TURN_KIND_UNSPECIFIED: 'TURN_KIND_UNSPECIFIED',
  /**
   * Tokens the policy sampled: loss mask 1.
   */
  TURN_KIND_SAMPLED: 'TURN_KIND_SAMPLED',
  /**
   * Tool results and chat-template tokens: loss mask 0, logprob 0.0.
   */
  TURN_KIND_OBSERVATION: 'TURN_KIND_OBSERVATION',
} as const;

export type TurnKind =
  /**
   * Never sent; a decoder rejects it.
   */
  | 'TURN_KIND_UNSPECIFIED'
  | 0
  /**
   * Tokens the policy sampled: loss mask 1.
   */
  | 'TURN_KIND_SAMPLED'
  | 1
  /**
   * Tool results and chat-template tokens: loss mask 0, logprob 0.0.
   */
  | 'TURN_KIND_OBSERVATION'
  | 2

export type TurnKind__Output = typeof TurnKind[keyof typeof TurnKind]
