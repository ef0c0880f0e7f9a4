// Original file: proto/rlfactory/v1/rollout.proto


/**
 * The `usage` of a tool-call record (the gateway's ModelUsage, as the trajectory records it).
 */
export interface ToolCallUsage {
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  'cost_usd'?: (number | string);
  'model'?: (string);
  '_cost_usd'?: "cost_usd";
}

/**
 * The `usage` of a tool-call record (the gateway's ModelUsage, as the trajectory records it).
 */
export interface ToolCallUsage__Output {
  'prompt_tokens': (number);
  'completion_tokens': (number);
  'cost_usd'?: (number);
  'model': (string);
  '_cost_usd'?: "cost_usd";
}
