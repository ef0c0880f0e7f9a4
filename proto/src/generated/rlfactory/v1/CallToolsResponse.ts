// Original file: proto/rlfactory/v1/gateway.proto

import type { ToolResult as _rlfactory_v1_ToolResult, ToolResult__Output as _rlfactory_v1_ToolResult__Output } from '../../rlfactory/v1/ToolResult.ts';

export interface CallToolsResponse {
  /**
   * Same length and order as CallToolsRequest.calls.
   */
  'results'?: (_rlfactory_v1_ToolResult)[];
}

export interface CallToolsResponse__Output {
  /**
   * Same length and order as CallToolsRequest.calls.
   */
  'results': (_rlfactory_v1_ToolResult__Output)[];
}
