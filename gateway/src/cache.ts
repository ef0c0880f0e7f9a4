// Result cache, opt-in per tool. Key = server, tool, canonical JSON of the arguments and the tool's
// schema version, hashed. Stored as JSON text in a KeyValueStore (@rlfactory/kit): in memory by
// default (bounded by entries and bytes, TTL per entry); Redis when several gateway replicas should
// share results. A hit is a fresh copy, so no caller can change what another one gets.
//
// Images are stored by content hash, apart from the results that carry them: a result's image block is
// kept as a reference (`blob:SHA256`), its bytes once under that key whichever calls answered it, so
// the same image in many results costs its bytes once. A result whose image has gone from the store
// (evicted, expired) is a miss.
//
// A cache failure never fails a call: a store error is logged and treated as a miss.
import { createHash } from "node:crypto";
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

/** The property of a stored image block that names its bytes' key (its content hash). */
const BLOB_REF = "rlf_blob_sha256";
const blobKey = (sha256: string) => `blob:${sha256}`;

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
      if (text === undefined) return undefined;
      const result = JSON.parse(text) as CallToolResult;
      if (!Array.isArray(result.content)) return result;
      const content: CallToolResult["content"] = [];
      for (const block of result.content) {
        const ref = (block as { [BLOB_REF]?: unknown })[BLOB_REF];
        if (block.type !== "image" || typeof ref !== "string") {
          content.push(block);
          continue;
        }
        const data = await this.#store.get(blobKey(ref));
        if (data === undefined) return undefined;
        content.push({ type: "image", data, mimeType: block.mimeType });
      }
      return { ...result, content };
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, "cache get failed; treating as a miss");
      return undefined;
    }
  }

  async set(key: string, value: CallToolResult, ttlMs: number): Promise<void> {
    try {
      if (!Array.isArray(value.content)) {
        await this.#store.set(key, JSON.stringify(value), ttlMs);
        return;
      }
      const blobs = new Map<string, string>();
      const content = value.content.map((block) => {
        if (block.type !== "image") return block;
        const sha = createHash("sha256").update(Buffer.from(block.data, "base64")).digest("hex");
        blobs.set(sha, block.data);
        return { type: "image", mimeType: block.mimeType, data: "", [BLOB_REF]: sha };
      });
      // The images first: a reader that finds the result finds its images.
      for (const [sha, data] of blobs) await this.#store.set(blobKey(sha), data, ttlMs);
      await this.#store.set(key, JSON.stringify({ ...value, content }), ttlMs);
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
