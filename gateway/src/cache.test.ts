// The result cache keeps an image's bytes once, by content hash, however many results carry it.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { createMemoryStore, type KeyValueStore } from "@rlfactory/kit";
import { describe, expect, it } from "vitest";
import { ResultCache } from "./cache.ts";

/** A memory store that remembers every value written, by key. */
function recordingStore(): { store: KeyValueStore; written: Map<string, string> } {
  const inner = createMemoryStore({ maxEntries: 100, maxBytes: 1024 * 1024 });
  const written = new Map<string, string>();
  const store: KeyValueStore = {
    backend: inner.backend,
    ready: () => inner.ready(),
    get: (k) => inner.get(k),
    set: (k, v, ttl) => {
      written.set(k, v);
      return inner.set(k, v, ttl);
    },
    delete: (k) => {
      written.delete(k);
      return inner.delete(k);
    },
    close: () => inner.close(),
  };
  return { store, written };
}

const IMAGE = Buffer.from("not really a png, but bytes all the same").toString("base64");
const withImage = (caption: string): CallToolResult => ({
  content: [
    { type: "image", data: IMAGE, mimeType: "image/png" },
    { type: "text", text: caption },
  ],
});

describe("ResultCache", () => {
  it("stores an image carried by two results once, and gives each result its image back", async () => {
    const { store, written } = recordingStore();
    const cache = new ResultCache(store);
    await cache.set("a", withImage("first"), 60_000);
    await cache.set("b", withImage("second"), 60_000);
    const holding = [...written.entries()].filter(([, v]) => v.includes(IMAGE));
    expect(holding.map(([k]) => k)).toEqual([expect.stringMatching(/^blob:[0-9a-f]{64}$/)]);
    expect(await cache.get("a")).toEqual(withImage("first"));
    expect(await cache.get("b")).toEqual(withImage("second"));
  });

  it("answers a miss for a result whose image has gone from the store", async () => {
    const { store, written } = recordingStore();
    const cache = new ResultCache(store);
    await cache.set("a", withImage("first"), 60_000);
    const blob = [...written.keys()].find((k) => k.startsWith("blob:"));
    await store.delete(blob ?? "");
    expect(await cache.get("a")).toBeUndefined();
  });
});
