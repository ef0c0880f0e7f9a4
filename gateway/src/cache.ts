// Result cache, opt-in per tool. Key = server, tool, canonical JSON of the arguments and the tool's
// schema version, hashed. Stored as JSON text in a KeyValueStore (@rlfactory/kit): in memory by
// default (bounded by entries and bytes, TTL per entry); Redis when several gateway replicas should
// share results. A hit is a fresh copy, so no caller can change what another one gets.
//
// A cache failure never fails a call: a store error is logged and treated as a miss.
import type { CallToolResult } from "@modelcontextprotocol/client";
import {
  canonicalJson,
  createMemoryStore,
  createRedisStore,
  type KeyValueStore,
  sha256Hex,
} from "@rlfactory/kit";
import { type Logger, pino } from "pino";
import type { GatewayConfig } from "./config.ts";

export function cacheKey(server: string, tool: string, args: unknown, schemaVersion: string): string {
  return sha256Hex(canonicalJson([server, tool, schemaVersion, args]));
}

export class ResultCache {
  #store: KeyValueStore;
  #log: Logger;

  constructor(store: KeyValueStore, log: Logger = pino({ level: "silent" })) {
    this.#store = store;
    this.#log = log.child({ component: "result-cache" });
  }

  get backend(): "memory" | "redis" {
    return this.#store.backend;
  }

  async get(key: string): Promise<CallToolResult | undefined> {
    try {
      const text = await this.#store.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as CallToolResult);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, "cache get failed; treating as a miss");
      return undefined;
    }
  }

  async set(key: string, value: CallToolResult, ttlMs: number): Promise<void> {
    try {
      await this.#store.set(key, JSON.stringify(value), ttlMs);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, "cache set failed");
    }
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

/** The configured cache; with Redis, waits for the connection so the first calls are not all misses. */
export async function createResultCache(config: GatewayConfig["cache"], log: Logger): Promise<ResultCache> {
  if (config.backend === "memory")
    return new ResultCache(
      createMemoryStore({ maxEntries: config.maxEntries, maxBytes: config.maxBytes }),
      log,
    );
  const store = createRedisStore({ url: config.redisUrl, keyPrefix: config.keyPrefix, log });
  if (!(await store.ready())) log.warn("redis not reachable yet; cache misses until it is");
  return new ResultCache(store, log);
}
