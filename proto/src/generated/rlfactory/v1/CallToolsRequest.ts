// Original file: proto/rlfactory/v1/gateway.proto

import type { ToolCall as _rlfactory_v1_ToolCall, ToolCall__Output as _rlfactory_v1_ToolCall__Output } from '../../rlfactory/v1/ToolCall.ts';

export interface CallToolsRequest {
  'calls'?: (_rlfactory_v1_ToolCall)[];
  /**
   * Applied to calls whose own deadline_ms is 0.
   */
  'deadline_ms'?: (number);
  /**
   * Applied to calls whose own trajectory_id is empty.
   */
  'trajectory_id'?: (string);
}

export interface CallToolsRequest__Output {
  'calls': (_rlfactory_v1_ToolCall__Output)[];
  /**
   * Applied to calls whose own deadline_ms is 0.
   */
  'deadline_ms': (number);
  /**
   * Applied to calls whose own trajectory_id is empty.
   */
  'trajectory_id': (string);
}
