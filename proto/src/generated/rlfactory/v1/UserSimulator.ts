// Original file: proto/rlfactory/v1/rollout.proto


/**
 * An LLM user simulator (the rollout config's `user_simulator` endpoint).
 */
export interface UserSimulator {
  /**
   * What the simulated user wants and knows (its system instruction); at least one character.
   */
  'instruction'?: (string);
  /**
   * Any other keys of the task's user_simulator object, as a JSON object in text. Empty: none.
   */
  'extra_json'?: (string);
}

/**
 * An LLM user simulator (the rollout config's `user_simulator` endpoint).
 */
export interface UserSimulator__Output {
  /**
   * What the simulated user wants and knows (its system instruction); at least one character.
   */
  'instruction': (string);
  /**
   * Any other keys of the task's user_simulator object, as a JSON object in text. Empty: none.
   */
  'extra_json': (string);
}
