// The Redis KeyValueStore (ioredis): values under `keyPrefix + key`, TTLs as PX.
//
// Readiness, the one wait: the client connects at creation; `ready()` and the first commands wait for
// it, at most `readyTimeoutMs` (default 5 s), through refused connections (a Redis that starts a moment
// after the service is used from the start). After that wait, nothing waits for Redis: commands are
// not queued while it is down (they fail at once) and ioredis reconnects in the background.
// Connection trouble is logged once per outage, not once per reconnect attempt.
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { checkTtl, type KeyValueStore } from "./key-value-store.ts";

export const DEFAULT_REDIS_READY_TIMEOUT_MS = 5_000;

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key, so services sharing one Redis keep apart. */
  keyPrefix?: string;
  readyTimeoutMs?: number;
  log?: Logger;
}

export function createRedisStore(opts: RedisStoreOptions): KeyValueStore {
  const prefix = opts.keyPrefix ?? "";
  const timeoutMs = opts.readyTimeoutMs ?? DEFAULT_REDIS_READY_TIMEOUT_MS;
  const url = withoutPassword(opts.url);
  const log = opts.log?.child({ component: "redis-store" });
  const redis = new Redis(opts.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  let down = false;
  redis.on("error", (err: Error) => {
    if (down) return;
    down = true;
    log?.warn({ url, err: err.message }, "redis unreachable; reconnecting in the background");
  });
  redis.on("ready", () => {
    if (down) log?.info({ url }, "redis reachable again");
    down = false;
  });
  const ready = untilReady(redis, timeoutMs);

  return {
    backend: "redis",
    ready: () => ready,
    async get(key) {
      await ready;
      return (await redis.get(prefix + key)) ?? undefined;
    },
    async set(key, value, ttlMs) {
      checkTtl(ttlMs);
      await ready;
      await redis.set(prefix + key, value, "PX", ttlMs);
    },
    async delete(key) {
      await ready;
      await redis.del(prefix + key);
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** True on "ready"; false after `timeoutMs`, or when the client ends (closed) first. */
function untilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("end", onEnd);
      resolve(ok);
    };
    const onReady = () => finish(true);
    const onEnd = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    redis.once("ready", onReady);
    redis.once("end", onEnd);
  });
}

/** The URL for logs: a password in it is replaced by "***". */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable redis url)";
  }
}
