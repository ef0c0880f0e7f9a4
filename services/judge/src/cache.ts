// Score cache for deterministic judgments (temperature 0, one sample, no `no_cache`): the same judge
// model, template version, mode, sanitized inputs and sampling params give the same score, so the
// judge is asked once. In memory (lru-cache, bounded, TTL) or in Redis (shared by replicas).
// Identical requests in flight at the same time share one judgment (single flight).
//
// A cache failure never fails a judgment: a Redis error is logged and treated as a miss.
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { JudgeConfig } from "./judge-config.ts";
import type { JudgeScore } from "./judge-types.ts";

/** Everything that decides a judgment. */
export interface CacheKeyParts {
  judgeModel: string;
  /** Template id@version the prompt was rendered with. */
  template: string;
  /** The rubric label (`metadata.template`) and its criteria text. */
  rubric: string;
  criteria: string;
  mode: string;
  /** Sanitized, normalised inputs (task, response(s), reference, prefix). */
  inputs: Record<string, unknown>;
  sampling: Record<string, unknown>;
  samples: number;
}

/** Line endings unified and outer whitespace trimmed: invisible differences do not miss the cache. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return typeof value === "string" ? normaliseText(value) : value;
}

export function judgeCacheKey(parts: CacheKeyParts): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical({ v: 1, ...parts })))
    .digest("hex");
}

interface Store {
  get(key: string): Promise<JudgeScore | undefined>;
  set(key: string, value: JudgeScore): Promise<void>;
  close(): Promise<void>;
}

function memoryStore(config: JudgeConfig["cache"]): Store {
  const lru = new LRUCache<string, string>({ max: config.max_entries, ttl: config.ttl_ms });
  return {
    // Stored as JSON so a hit is a fresh object every caller may change.
    get: async (key) => {
      const text = lru.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as JudgeScore);
    },
    set: async (key, value) => void lru.set(key, JSON.stringify(value)),
    close: async () => lru.clear(),
  };
}

function redisStore(config: JudgeConfig["cache"], log: Logger): Store {
  // Fail fast while Redis is down: a cache is an optimisation, judgments must not wait for it.
  const redis = new Redis(config.redis_url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on("error", (err) => log.warn({ err: err.message }, "judge cache: redis error"));
  const ready =
    redis.status === "ready"
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2_000);
          redis.once("ready", () => {
            clearTimeout(timer);
            resolve();
          });
        });
  return {
    async get(key) {
      try {
        await ready;
        const text = await redis.get(config.key_prefix + key);
        return text === null ? undefined : (JSON.parse(text) as JudgeScore);
      } catch (err) {
        log.warn({ err: (err as Error).message }, "judge cache get failed; treating as a miss");
        return undefined;
      }
    },
    async set(key, value) {
      try {
        await ready;
        await redis.set(config.key_prefix + key, JSON.stringify(value), "PX", config.ttl_ms);
      } catch (err) {
        log.warn({ err: (err as Error).message }, "judge cache set failed");
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

export interface ScoreCache {
  readonly backend: "memory" | "redis";
  /**
   * The cached score for `key` (with `metadata.cached: true`), else the result of `compute`, stored
   * on success. Concurrent calls with the same key share one `compute`. Failures are not cached.
   */
  through(key: string, compute: () => Promise<JudgeScore>): Promise<JudgeScore>;
  close(): Promise<void>;
}

export function createScoreCache(config: JudgeConfig["cache"], log: Logger): ScoreCache {
  const store = config.backend === "redis" ? redisStore(config, log) : memoryStore(config);
  const inFlight = new Map<string, Promise<JudgeScore>>();

  async function lookupOrCompute(key: string, compute: () => Promise<JudgeScore>): Promise<JudgeScore> {
    const started = performance.now();
    const hit = await store.get(key);
    if (hit) {
      const latency = Math.round((performance.now() - started) * 1000) / 1000;
      // A hit costs no judge call and no tokens.
      return {
        ...hit,
        metadata: {
          ...hit.metadata,
          cached: true,
          latency_ms: latency,
          calls: 0,
          tokens: { prompt: 0, completion: 0 },
        },
      };
    }
    const fresh = await compute();
    await store.set(key, fresh);
    return fresh;
  }

  return {
    backend: config.backend,
    through(key, compute) {
      const running = inFlight.get(key);
      if (running) return running.then((r) => ({ ...r, metadata: { ...r.metadata, cached: true } }));
      const p = lookupOrCompute(key, compute).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
    close: () => store.close(),
  };
}
