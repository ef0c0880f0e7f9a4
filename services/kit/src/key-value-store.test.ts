// The KeyValueStore contract, run against every implementation: in memory (with an injected clock)
// and Redis (a real redis-server on a loopback port). Then what only one of them has: the memory
// store's bounds, the Redis store's key prefix and its readiness wait.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { KeyValueStore } from "./key-value-store.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createRedisStore } from "./redis-store.ts";

/** A free loopback port: redis-server cannot bind port 0 and report it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A real redis-server on a loopback port (`port`, else a free one), with persistence off. */
async function startRedis(opts: { port?: number } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const port = opts.port ?? (await freePort());
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.once("error", (err) =>
      reject(new Error(`cannot run redis-server (.ci/run installs it): ${err.message}`)),
    );
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready`)));
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Ready to accept connections")) resolve();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

let redis: Awaited<ReturnType<typeof startRedis>>;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

const opened: KeyValueStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
const track = (store: KeyValueStore) => {
  opened.push(store);
  return store;
};
let prefixes = 0;
const freshPrefix = () => `kv-test-${process.pid}-${++prefixes}:`;

/** A pino logger whose lines are kept; `logged(prefix)` resolves when a line starting so is written. */
function capturedLog() {
  const lines: { msg: string; [k: string]: unknown }[] = [];
  const waiting: { prefix: string; resolve: () => void }[] = [];
  const log = pino(
    { level: "info" },
    {
      write(text: string) {
        const line = JSON.parse(text) as { msg: string };
        lines.push(line);
        for (const w of waiting) if (line.msg.startsWith(w.prefix)) w.resolve();
      },
    },
  );
  const logged = (prefix: string) => new Promise<void>((resolve) => waiting.push({ prefix, resolve }));
  return { log, lines, logged };
}

/** Polls until `key` is gone, at most `polls` times; true when it went. */
async function goneWithin(store: KeyValueStore, key: string, polls: number): Promise<boolean> {
  for (let i = 0; i < polls; i++) {
    if ((await store.get(key)) === undefined) return true;
    await delay(10);
  }
  return false;
}

interface Subject {
  name: string;
  open(): KeyValueStore;
  /** Makes an entry set with `ttlMs` expire; true once it has. */
  outlive(store: KeyValueStore, key: string, ttlMs: number): Promise<boolean>;
}

const clocks = new WeakMap<KeyValueStore, { now: number }>();
const subjects: Subject[] = [
  {
    name: "memory",
    open() {
      const clock = { now: 1_000 }; // lru-cache reads a start time of 0 as "no TTL"
      const store = createMemoryStore({ maxEntries: 100, now: () => clock.now });
      clocks.set(store, clock);
      return track(store);
    },
    async outlive(store, key, ttlMs) {
      const clock = clocks.get(store)!;
      clock.now += ttlMs + 1;
      return (await store.get(key)) === undefined;
    },
  },
  {
    name: "redis",
    open: () => track(createRedisStore({ url: redis.url, keyPrefix: freshPrefix() })),
    // Redis expires on its own clock: poll, a bounded number of times.
    outlive: (store, key) => goneWithin(store, key, 300),
  },
];

describe.each(subjects)("KeyValueStore contract: $name", (subject) => {
  it("is ready, answers undefined for an absent key, and returns what was set", async () => {
    const store = subject.open();
    expect(await store.ready()).toBe(true);
    expect(await store.get("absent")).toBeUndefined();
    await store.set("k", '{"a":1}', 60_000);
    expect(await store.get("k")).toBe('{"a":1}');
    await store.set("k", "replaced", 60_000);
    expect(await store.get("k")).toBe("replaced");
  });

  it("forgets an entry once its TTL has passed, and only that entry", async () => {
    const store = subject.open();
    await store.set("short", "v", 20);
    await store.set("long", "w", 600_000);
    expect(await subject.outlive(store, "short", 20)).toBe(true);
    expect(await store.get("long")).toBe("w");
  });

  it("deletes an entry; deleting an absent key is no error", async () => {
    const store = subject.open();
    await store.set("k", "v", 60_000);
    await store.set("other", "o", 60_000);
    await store.delete("k");
    await store.delete("never-set");
    expect(await store.get("k")).toBeUndefined();
    expect(await store.get("other")).toBe("o");
  });

  it("refuses a TTL that is not a positive whole number of ms, and stores nothing", async () => {
    const store = subject.open();
    for (const ttl of [0, -5, 1.5, Number.NaN]) {
      await expect(store.set("k", "v", ttl)).rejects.toThrow(RangeError);
    }
    expect(await store.get("k")).toBeUndefined();
  });
});

describe("memory store", () => {
  it("keeps an entry up to its TTL on the store's clock, and not a millisecond past it", async () => {
    const clock = { now: 1_000 };
    const store = createMemoryStore({ maxEntries: 10, now: () => clock.now });
    await store.set("k", "v", 100);
    clock.now += 100;
    expect(await store.get("k")).toBe("v");
    clock.now += 1;
    expect(await store.get("k")).toBeUndefined();
  });

  it("evicts the least recently used entries beyond maxEntries and maxBytes", async () => {
    const byCount = createMemoryStore({ maxEntries: 2 });
    await byCount.set("a", "1", 60_000);
    await byCount.set("b", "2", 60_000);
    await byCount.get("a"); // a is now the most recently used
    await byCount.set("c", "3", 60_000);
    expect([await byCount.get("a"), await byCount.get("b"), await byCount.get("c")]).toEqual([
      "1",
      undefined,
      "3",
    ]);

    const byBytes = createMemoryStore({ maxEntries: 100, maxBytes: 10 });
    await byBytes.set("x", "123456", 60_000);
    await byBytes.set("y", "123456", 60_000);
    expect([await byBytes.get("x"), await byBytes.get("y")]).toEqual([undefined, "123456"]);
  });
});

describe("redis store", () => {
  it("stores under its key prefix: the same prefix shares entries, another prefix does not see them", async () => {
    const prefix = freshPrefix();
    const a = track(createRedisStore({ url: redis.url, keyPrefix: prefix }));
    const b = track(createRedisStore({ url: redis.url, keyPrefix: prefix }));
    const other = track(createRedisStore({ url: redis.url, keyPrefix: freshPrefix() }));
    await a.set("k", "shared", 60_000);
    expect(await b.get("k")).toBe("shared");
    expect(await other.get("k")).toBeUndefined();
  });

  it("readiness fails when nothing listens, every command then fails at once, and it is logged once", async () => {
    const port = await freePort(); // free: nothing listens there
    const { log, lines } = capturedLog();
    const store = track(createRedisStore({ url: `redis://127.0.0.1:${port}`, readyTimeoutMs: 300, log }));
    expect(await store.ready()).toBe(false);
    await expect(store.get("k")).rejects.toThrow();
    await expect(store.set("k", "v", 1_000)).rejects.toThrow();
    // ioredis retries in the background; the outage is one line, with the URL and the error.
    const unreachable = lines.filter((l) => l.msg.startsWith("redis unreachable"));
    expect(unreachable).toHaveLength(1);
    expect(unreachable[0]).toMatchObject({ url: `redis://127.0.0.1:${port}`, err: expect.any(String) });
  });

  it("waits through refused connections: a Redis that starts after the store is used from the start", async () => {
    const port = await freePort();
    const { log, lines, logged } = capturedLog();
    const refused = logged("redis unreachable");
    const store = track(createRedisStore({ url: `redis://127.0.0.1:${port}`, readyTimeoutMs: 20_000, log }));
    const first = store.set("k", "v", 60_000); // issued while nothing listens yet
    await refused;
    const late = await startRedis({ port });
    try {
      await first; // waited for the connection instead of failing
      expect(await store.get("k")).toBe("v");
      expect(await store.ready()).toBe(true);
      expect(lines.map((l) => l.msg)).toContain("redis reachable again");
    } finally {
      await store.close();
      await late.stop();
    }
  });
});
