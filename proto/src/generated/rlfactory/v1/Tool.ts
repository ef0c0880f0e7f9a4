// Original file: proto/rlfactory/v1/gateway.proto

import type { ToolAnnotations as _rlfactory_v1_ToolAnnotations, ToolAnnotations__Output as _rlfactory_v1_ToolAnnotations__Output } from '../../rlfactory/v1/ToolAnnotations.ts';

export interface Tool {
  /**
   * Gateway name, `server__tool`; what callers use in ToolCall.name.
   */
  'name'?: (string);
  /**
   * The upstream server's configured name.
   */
  'server'?: (string);
  /**
   * The tool's name on the upstream server.
   */
  'upstream_name'?: (string);
  'title'?: (string);
  'description'?: (string);
  /**
   * JSON Schema of the arguments, as JSON text.
   */
  'input_schema_json'?: (string);
  /**
   * JSON Schema of `structured_content_json`, as JSON text (empty when the tool declares none).
   */
  'output_schema_json'?: (string);
  'annotations'?: (_rlfactory_v1_ToolAnnotations | null);
  /**
   * Effective gateway policy for this tool (config wins over annotations).
   */
  'cacheable'?: (boolean);
  'idempotent'?: (boolean);
  /**
   * Hash of the tool definition; part of every cache key, so a schema change invalidates results.
   */
  'schema_version'?: (string);
}

export interface Tool__Output {
  /**
   * Gateway name, `server__tool`; what callers use in ToolCall.name.
   */
  'name': (string);
  /**
   * The upstream server's configured name.
   */
  'server': (string);
  /**
   * The tool's name on the upstream server.
   */
  'upstream_name': (string);
  'title': (string);
  'description': (string);
  /**
   * JSON Schema of the arguments, as JSON text.
   */
  'input_schema_json': (string);
  /**
   * JSON Schema of `structured_content_json`, as JSON text (empty when the tool declares none).
   */
  'output_schema_json': (string);
  'annotations': (_rlfactory_v1_ToolAnnotations__Output | null);
  /**
   * Effective gateway policy for this tool (config wins over annotations).
   */
  'cacheable': (boolean);
  'idempotent': (boolean);
  /**
   * Hash of the tool definition; part of every cache key, so a schema change invalidates results.
   */
  'schema_version': (string);
}
