// Original file: proto/rlfactory/v1/gateway.proto

import type { ToolResult as _rlfactory_v1_ToolResult, ToolResult__Output as _rlfactory_v1_ToolResult__Output } from '../../rlfactory/v1/ToolResult.ts';
import type { Long } from '@grpc/proto-loader';

export interface CallToolsStreamResponse {
  'batch_id'?: (number | string | Long);
  /**
   * What CallTools would return: same length and order as the batch's calls. Empty when status_code
   * is not 0.
   */
  'results'?: (_rlfactory_v1_ToolResult)[];
  /**
   * 0 (OK), or the gRPC status code the unary CallTools would have failed with: INVALID_ARGUMENT
   * (an empty batch), RESOURCE_EXHAUSTED (over max_batch_size), INTERNAL, ... Only that batch fails;
   * the stream goes on.
   */
  'status_code'?: (number);
  'status_details'?: (string);
}

export interface CallToolsStreamResponse__Output {
  'batch_id': (string);
  /**
   * What CallTools would return: same length and order as the batch's calls. Empty when status_code
   * is not 0.
   */
  'results': (_rlfactory_v1_ToolResult__Output)[];
  /**
   * 0 (OK), or the gRPC status code the unary CallTools would have failed with: INVALID_ARGUMENT
   * (an empty batch), RESOURCE_EXHAUSTED (over max_batch_size), INTERNAL, ... Only that batch fails;
   * the stream goes on.
   */
  'status_code': (number);
  'status_details': (string);
}
