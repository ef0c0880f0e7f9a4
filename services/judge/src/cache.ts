// Score cache for deterministic judgments (temperature 0, one sample, no `no_cache`): the same judge
// model, template version, mode, sanitized inputs and sampling params give the same score, so the
// judge is asked once. Stored as JSON text in a KeyValueStore (@rlfactory/kit): in memory (bounded,
// TTL) or in Redis (shared by replicas). Identical requests in flight at the same time share one
// judgment (the kit's SingleFlight: it stops only when every caller waiting for it has gone).
//
// A cache failure never fails a judgment: a store error is logged and treated as a miss.
import {
  canonicalJson,
  createMemoryStore,
  createRedisStore,
  type KeyValueStore,
  SingleFlight,
  sha256Hex,
} from "@rlfactory/kit";
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

export function judgeCacheKey(parts: CacheKeyParts): string {
  return sha256Hex(canonicalJson({ v: 1, ...parts }, normaliseText));
}

function createStore(config: JudgeConfig["cache"], log: Logger): KeyValueStore {
  return config.backend === "memory"
    ? createMemoryStore({ maxEntries: config.max_entries })
    : createRedisStore({ url: config.redis_url, keyPrefix: config.key_prefix, log });
}

export interface ScoreCache {
  readonly backend: "memory" | "redis";
  /**
   * The cached score for `key` (with `metadata.cached: true`), else the result of `compute`, stored
   * on success. Concurrent calls with the same key share one `compute`, which gets a signal that
   * aborts only when every one of them has left (`signal` is this caller's). Failures are not cached.
   */
  through(
    key: string,
    signal: AbortSignal,
    compute: (signal: AbortSignal) => Promise<JudgeScore>,
  ): Promise<JudgeScore>;
  close(): Promise<void>;
}

export function createScoreCache(config: JudgeConfig["cache"], log: Logger): ScoreCache {
  const store = createStore(config, log);
  const flights = new SingleFlight<JudgeScore>();
  let closed = false;
  // Not awaited: the first requests wait for it (inside the store) instead of the judge's start-up.
  void store.ready().then((ok) => {
    if (!ok && !closed) log.warn("judge cache: redis not reachable yet; cache misses until it is");
  });

  async function lookup(key: string): Promise<JudgeScore | undefined> {
    try {
      const text = await store.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as JudgeScore);
    } catch (err) {
      log.warn({ err: (err as Error).message }, "judge cache get failed; treating as a miss");
      return undefined;
    }
  }

  async function save(key: string, score: JudgeScore): Promise<void> {
    try {
      await store.set(key, JSON.stringify(score), config.ttl_ms);
    } catch (err) {
      log.warn({ err: (err as Error).message }, "judge cache set failed");
    }
  }

  async function lookupOrCompute(key: string, compute: () => Promise<JudgeScore>): Promise<JudgeScore> {
    const started = performance.now();
    const hit = await lookup(key);
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
    await save(key, fresh);
    return fresh;
  }

  return {
    backend: config.backend,
    async through(key, signal, compute) {
      const { value, joined } = await flights.run(key, signal, (shared) =>
        lookupOrCompute(key, () => compute(shared)),
      );
      // A caller that joined another's judgment reads as cached.
      return joined ? { ...value, metadata: { ...value.metadata, cached: true } } : value;
    },
    close: () => {
      closed = true;
      return store.close();
    },
  };
}
