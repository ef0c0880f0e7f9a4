// Original file: proto/rlfactory/v1/gateway.proto

import type { CacheMode as _rlfactory_v1_CacheMode, CacheMode__Output as _rlfactory_v1_CacheMode__Output } from '../../rlfactory/v1/CacheMode.ts';

export interface ToolCall {
  /**
   * `server__tool`.
   */
  'name'?: (string);
  /**
   * The arguments as a JSON object, in text. Empty means `{}`.
   */
  'arguments_json'?: (string);
  /**
   * Deadline for this call in milliseconds (0: the configured default). Capped by the configured
   * maximum and by the RPC's own gRPC deadline.
   */
  'deadline_ms'?: (number);
  /**
   * The episode / trajectory this call belongs to (logs, traces, metrics exemplars).
   */
  'trajectory_id'?: (string);
  'cache'?: (_rlfactory_v1_CacheMode);
  /**
   * Opaque caller id, echoed in the result.
   */
  'call_id'?: (string);
  /**
   * Run against this episode's state (StartEpisode). Such a call is never cached nor retried; calls of
   * one CallTools batch on the same episode run one after another, in request order.
   */
  'episode_id'?: (string);
}

export interface ToolCall__Output {
  /**
   * `server__tool`.
   */
  'name': (string);
  /**
   * The arguments as a JSON object, in text. Empty means `{}`.
   */
  'arguments_json': (string);
  /**
   * Deadline for this call in milliseconds (0: the configured default). Capped by the configured
   * maximum and by the RPC's own gRPC deadline.
   */
  'deadline_ms': (number);
  /**
   * The episode / trajectory this call belongs to (logs, traces, metrics exemplars).
   */
  'trajectory_id': (string);
  'cache': (_rlfactory_v1_CacheMode__Output);
  /**
   * Opaque caller id, echoed in the result.
   */
  'call_id': (string);
  /**
   * Run against this episode's state (StartEpisode). Such a call is never cached nor retried; calls of
   * one CallTools batch on the same episode run one after another, in request order.
   */
  'episode_id': (string);
}
