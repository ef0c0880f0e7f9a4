// Original file: proto/rlfactory/v1/rollout.proto


export interface SetPolicyVersionRequest {
  /**
   * A trainer step as decimal text, or an engine's version string; at least one character.
   */
  'version'?: (string);
}

export interface SetPolicyVersionRequest__Output {
  /**
   * A trainer step as decimal text, or an engine's version string; at least one character.
   */
  'version': (string);
}
