// Original file: proto/rlfactory/v1/rollout.proto


/**
 * One chat message handed to the model's chat template.
 */
export interface ChatMessage {
  /**
   * `system`, `user`, `assistant` or `tool`.
   */
  'role'?: (string);
  'content'?: (string);
  /**
   * Any other keys the chat template reads (`tool_calls`, `tool_call_id`, `name`,
   * `reasoning_content`, ...), as a JSON object in text. Empty: none.
   */
  'extra_json'?: (string);
}

/**
 * One chat message handed to the model's chat template.
 */
export interface ChatMessage__Output {
  /**
   * `system`, `user`, `assistant` or `tool`.
   */
  'role': (string);
  'content': (string);
  /**
   * Any other keys the chat template reads (`tool_calls`, `tool_call_id`, `name`,
   * `reasoning_content`, ...), as a JSON object in text. Empty: none.
   */
  'extra_json': (string);
}
