// Original file: proto/rlfactory/v1/gateway.proto


/**
 * An episode operation that failed answers a gRPC status: NOT_FOUND (EPISODE_NOT_FOUND, unknown
 * server), DATA_LOSS (EPISODE_LOST), RESOURCE_EXHAUSTED (the live-episode limit), INVALID_ARGUMENT,
 * UNAVAILABLE, DEADLINE_EXCEEDED; the details start with the ErrorCode name, e.g. "EPISODE_LOST: ...".
 */
export interface StartEpisodeRequest {
  /**
   * The environment server's configured name.
   */
  'server'?: (string);
  /**
   * The environment's configuration as a JSON object, in text. Empty means `{}`.
   */
  'config_json'?: (string);
  /**
   * Lifetime of the episode in milliseconds (0: the server's `episodes.max_ttl_ms`; capped by it).
   */
  'ttl_ms'?: (number);
}

/**
 * An episode operation that failed answers a gRPC status: NOT_FOUND (EPISODE_NOT_FOUND, unknown
 * server), DATA_LOSS (EPISODE_LOST), RESOURCE_EXHAUSTED (the live-episode limit), INVALID_ARGUMENT,
 * UNAVAILABLE, DEADLINE_EXCEEDED; the details start with the ErrorCode name, e.g. "EPISODE_LOST: ...".
 */
export interface StartEpisodeRequest__Output {
  /**
   * The environment server's configured name.
   */
  'server': (string);
  /**
   * The environment's configuration as a JSON object, in text. Empty means `{}`.
   */
  'config_json': (string);
  /**
   * Lifetime of the episode in milliseconds (0: the server's `episodes.max_ttl_ms`; capped by it).
   */
  'ttl_ms': (number);
}
