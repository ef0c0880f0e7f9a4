// Original file: proto/rlfactory/v1/gateway.proto


/**
 * Tokens (and cost) one call spent on a model.
 */
export interface ModelUsage {
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  /**
   * USD, from the server's configured price; absent without one.
   */
  'cost_usd'?: (number | string);
  /**
   * The model that answered.
   */
  'model'?: (string);
  '_cost_usd'?: "cost_usd";
}

/**
 * Tokens (and cost) one call spent on a model.
 */
export interface ModelUsage__Output {
  'prompt_tokens': (number);
  'completion_tokens': (number);
  /**
   * USD, from the server's configured price; absent without one.
   */
  'cost_usd'?: (number);
  /**
   * The model that answered.
   */
  'model': (string);
  '_cost_usd'?: "cost_usd";
}
