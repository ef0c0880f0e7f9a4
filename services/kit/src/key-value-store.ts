// A key-value store with per-entry TTLs: the one storage interface behind the gateway's result cache
// and the judge's score cache. Two implementations: in memory (memory-store.ts, lru-cache, one
// process) and Redis (redis-store.ts, shared by replicas). Values are text; callers encode.
//
// A store reports failures (a rejected promise); whether a failure is a miss is the caller's choice.
export interface KeyValueStore {
  readonly backend: "memory" | "redis";
  /**
   * Resolves true once the store can serve, false if it could not connect within its readiness
   * timeout (memory: true at once). Every call returns the same wait; commands wait for it too.
   */
  ready(): Promise<boolean>;
  /** The value, or undefined when the key is absent or its TTL has passed. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` for `ttlMs` milliseconds (a positive whole number), replacing any earlier value. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** A TTL both implementations accept: Redis refuses PX 0, lru-cache would read 0 as "never expires". */
export function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1)
    throw new RangeError(`a TTL is a positive whole number of milliseconds, not ${ttlMs}`);
}
