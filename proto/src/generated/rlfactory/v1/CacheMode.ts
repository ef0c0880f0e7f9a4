// Original file: proto/rlfactory/v1/gateway.proto

export const CacheMode = {
  /**
   * Use the cache when the tool is configured as cacheable.
   */
  CACHE_DEFAULT: 'CACHE_DEFAULT',
  /**
   * Neither read nor write the cache for this call; always execute upstream.
   */
  CACHE_BYPASS: 'CACHE_BYPASS',
} as const;

export type CacheMode =
  /**
   * Use the cache when the tool is configured as cacheable.
   */
  | 'CACHE_DEFAULT'
  | 0
  /**
   * Neither read nor write the cache for this call; always execute upstream.
   */
  | 'CACHE_BYPASS'
  | 1

export type CacheMode__Output = typeof CacheMode[keyof typeof CacheMode]
