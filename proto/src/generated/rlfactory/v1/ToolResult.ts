// Original file: proto/rlfactory/v1/gateway.proto

import type { Content as _rlfactory_v1_Content, Content__Output as _rlfactory_v1_Content__Output } from '../../rlfactory/v1/Content.ts';
import type { ErrorCode as _rlfactory_v1_ErrorCode, ErrorCode__Output as _rlfactory_v1_ErrorCode__Output } from '../../rlfactory/v1/ErrorCode.ts';
import type { ModelUsage as _rlfactory_v1_ModelUsage, ModelUsage__Output as _rlfactory_v1_ModelUsage__Output } from '../../rlfactory/v1/ModelUsage.ts';

export interface ToolResult {
  /**
   * Echo of ToolCall.name and ToolCall.call_id.
   */
  'name'?: (string);
  'call_id'?: (string);
  /**
   * MCP content blocks, as the tool returned them (text may be truncated, see `truncated`).
   */
  'content'?: (_rlfactory_v1_Content)[];
  /**
   * MCP `structuredContent`, as JSON text (empty when absent).
   */
  'structured_content_json'?: (string);
  /**
   * The tool said the call failed (MCP `isError`). A normal outcome: never trips the breaker.
   */
  'is_error'?: (boolean);
  /**
   * Set when the call itself failed; then content is empty.
   */
  'error_code'?: (_rlfactory_v1_ErrorCode);
  /**
   * Human-readable reason for error_code; never a stack trace.
   */
  'error_message'?: (string);
  /**
   * Wall time spent in the gateway for this call.
   */
  'latency_ms'?: (number | string);
  'cache_hit'?: (boolean);
  /**
   * Upstream attempts made (0 for a cache hit or a call rejected before reaching the upstream).
   */
  'attempts'?: (number);
  /**
   * Text content was cut at the output cap; a marker is appended to the cut text.
   */
  'truncated'?: (boolean);
  /**
   * What the call spent on a model (a model tool's tokens and, with a configured price, cost). Absent
   * for tools that report none, and for a cache hit (nothing was spent).
   */
  'usage'?: (_rlfactory_v1_ModelUsage | null);
  '_usage'?: "usage";
}

export interface ToolResult__Output {
  /**
   * Echo of ToolCall.name and ToolCall.call_id.
   */
  'name': (string);
  'call_id': (string);
  /**
   * MCP content blocks, as the tool returned them (text may be truncated, see `truncated`).
   */
  'content': (_rlfactory_v1_Content__Output)[];
  /**
   * MCP `structuredContent`, as JSON text (empty when absent).
   */
  'structured_content_json': (string);
  /**
   * The tool said the call failed (MCP `isError`). A normal outcome: never trips the breaker.
   */
  'is_error': (boolean);
  /**
   * Set when the call itself failed; then content is empty.
   */
  'error_code': (_rlfactory_v1_ErrorCode__Output);
  /**
   * Human-readable reason for error_code; never a stack trace.
   */
  'error_message': (string);
  /**
   * Wall time spent in the gateway for this call.
   */
  'latency_ms': (number);
  'cache_hit': (boolean);
  /**
   * Upstream attempts made (0 for a cache hit or a call rejected before reaching the upstream).
   */
  'attempts': (number);
  /**
   * Text content was cut at the output cap; a marker is appended to the cut text.
   */
  'truncated': (boolean);
  /**
   * What the call spent on a model (a model tool's tokens and, with a configured price, cost). Absent
   * for tools that report none, and for a cache hit (nothing was spent).
   */
  'usage'?: (_rlfactory_v1_ModelUsage__Output | null);
  '_usage'?: "usage";
}
