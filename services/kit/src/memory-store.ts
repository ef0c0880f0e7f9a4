// The in-memory KeyValueStore: lru-cache, bounded by entries (and optionally by the summed value
// length), a TTL per entry. Each get hands out the stored text, so no caller can change another's value.
import { LRUCache } from "lru-cache";
import { checkTtl, type KeyValueStore } from "./key-value-store.ts";

export interface MemoryStoreOptions {
  maxEntries: number;
  /** Bound on the summed length of the stored values; default: bounded by entries only. */
  maxBytes?: number;
  /**
   * The clock TTLs are measured on, in ms (tests inject one; it must not read 0, which lru-cache takes
   * for "no TTL"); default `performance.now`.
   */
  now?: () => number;
}

export function createMemoryStore(opts: MemoryStoreOptions): KeyValueStore {
  const lru = new LRUCache<string, string>({
    max: opts.maxEntries,
    ...(opts.maxBytes === undefined
      ? {}
      : { maxSize: opts.maxBytes, sizeCalculation: (value: string) => Math.max(1, value.length) }),
    // An injected clock is read on every check (lru-cache otherwise reuses a reading for 1 ms).
    ...(opts.now ? { perf: { now: opts.now }, ttlResolution: 0 } : {}),
  });
  const ready = Promise.resolve(true);
  return {
    backend: "memory",
    ready: () => ready,
    get: async (key) => lru.get(key),
    set: async (key, value, ttlMs) => {
      checkTtl(ttlMs);
      lru.set(key, value, { ttl: ttlMs });
    },
    delete: async (key) => void lru.delete(key),
    close: async () => lru.clear(),
  };
}
