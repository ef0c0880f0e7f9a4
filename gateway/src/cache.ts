// Result cache, opt-in per tool. Key = server, tool, canonical JSON of the arguments and the tool's
// schema version, hashed. In memory by default (lru-cache, bounded by entries and bytes, TTL per
// entry); Redis when several gateway replicas should share results.
//
// A cache failure never fails a call: a Redis error is logged and treated as a miss.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { canonicalJson, sha256Hex } from "@rlfactory/kit";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { GatewayConfig } from "./config.ts";

export interface ResultCache {
  readonly backend: "memory" | "redis";
  get(key: string): Promise<CallToolResult | undefined>;
  set(key: string, value: CallToolResult, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

export function cacheKey(server: string, tool: string, args: unknown, schemaVersion: string): string {
  return sha256Hex(canonicalJson([server, tool, schemaVersion, args]));
}

export class MemoryResultCache implements ResultCache {
  readonly backend = "memory" as const;
  #lru: LRUCache<string, CallToolResult>;

  constructor(opts: { maxEntries: number; maxBytes: number }) {
    this.#lru = new LRUCache<string, CallToolResult>({ max: opts.maxEntries, maxSize: opts.maxBytes });
  }

  async get(key: string): Promise<CallToolResult | undefined> {
    return this.#lru.get(key);
  }

  async set(key: string, value: CallToolResult, ttlMs: number): Promise<void> {
    // Frozen: a hit hands the same object to every caller, so nobody may change it.
    this.#lru.set(key, deepFreeze(value), { ttl: ttlMs, size: Math.max(1, JSON.stringify(value).length) });
  }

  async close(): Promise<void> {
    this.#lru.clear();
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class RedisResultCache implements ResultCache {
  readonly backend = "redis" as const;
  #redis: Redis;
  #prefix: string;
  #log: Logger;

  constructor(opts: { url: string; keyPrefix: string }, log: Logger) {
    this.#prefix = opts.keyPrefix;
    this.#log = log.child({ component: "redis-cache" });
    // Fail fast while Redis is down: a cache is an optimisation, calls must not wait for it.
    this.#redis = new Redis(opts.url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    this.#redis.on("error", (err) => this.#log.warn({ err: err.message }, "redis error"));
  }

  async get(key: string): Promise<CallToolResult | undefined> {
    try {
      const text = await this.#redis.get(this.#prefix + key);
      return text === null ? undefined : (JSON.parse(text) as CallToolResult);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, "cache get failed; treating as a miss");
      return undefined;
    }
  }

  async set(key: string, value: CallToolResult, ttlMs: number): Promise<void> {
    try {
      await this.#redis.set(this.#prefix + key, JSON.stringify(value), "PX", ttlMs);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, "cache set failed");
    }
  }

  /** Resolves once connected (used at start-up so the first calls are not all misses). */
  async ready(timeoutMs = 5_000): Promise<boolean> {
    if (this.#redis.status === "ready") return true;
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#redis.once("ready", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

export async function createResultCache(config: GatewayConfig["cache"], log: Logger): Promise<ResultCache> {
  if (config.backend === "memory") return new MemoryResultCache(config);
  const cache = new RedisResultCache({ url: config.redisUrl, keyPrefix: config.keyPrefix }, log);
  if (!(await cache.ready()))
    log.warn({ url: config.redisUrl }, "redis not reachable yet; cache misses until it is");
  return cache;
}
