// Original file: proto/rlfactory/v1/rollout.proto


/**
 * A set of tool names; present and empty offers no tools (which differs from absent).
 */
export interface ToolNames {
  'names'?: (string)[];
}

/**
 * A set of tool names; present and empty offers no tools (which differs from absent).
 */
export interface ToolNames__Output {
  'names': (string)[];
}
