// Original file: proto/rlfactory/v1/gateway.proto

import type { CallToolsRequest as _rlfactory_v1_CallToolsRequest, CallToolsRequest__Output as _rlfactory_v1_CallToolsRequest__Output } from '../../rlfactory/v1/CallToolsRequest.ts';
import type { Long } from '@grpc/proto-loader';

export interface CallToolsStreamRequest {
  /**
   * Chosen by the client; unique among its batches in flight on this stream.
   */
  'batch_id'?: (number | string | Long);
  /**
   * A new batch, exactly what CallTools takes.
   */
  'batch'?: (_rlfactory_v1_CallToolsRequest | null);
  /**
   * Abort batch `batch_id`'s calls (as a cancelled CallTools RPC does); it then gets no answer. A
   * cancel for a batch that is not in flight is ignored.
   */
  'cancel'?: (boolean);
  /**
   * W3C trace context of the caller for this batch (the unary CallTools reads it from metadata); the
   * gateway's span for the batch continues it.
   */
  'traceparent'?: (string);
  'tracestate'?: (string);
  'kind'?: "batch"|"cancel";
}

export interface CallToolsStreamRequest__Output {
  /**
   * Chosen by the client; unique among its batches in flight on this stream.
   */
  'batch_id': (string);
  /**
   * A new batch, exactly what CallTools takes.
   */
  'batch'?: (_rlfactory_v1_CallToolsRequest__Output | null);
  /**
   * Abort batch `batch_id`'s calls (as a cancelled CallTools RPC does); it then gets no answer. A
   * cancel for a batch that is not in flight is ignored.
   */
  'cancel'?: (boolean);
  /**
   * W3C trace context of the caller for this batch (the unary CallTools reads it from metadata); the
   * gateway's span for the batch continues it.
   */
  'traceparent': (string);
  'tracestate': (string);
  'kind'?: "batch"|"cancel";
}
