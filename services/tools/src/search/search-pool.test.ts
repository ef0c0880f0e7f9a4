// Queries served by worker threads sharing one copy of the index answer exactly what the event loop's
// path answers: the same passages, in the same order, with the same scores.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openBm25Retriever } from "./bm25-retriever.ts";
import { SAMPLE_CORPUS } from "./search-server.ts";

/** Queries from the corpus itself: each passage's title, and the first words of its text. */
const queries = readFileSync(SAMPLE_CORPUS, "utf8")
  .split("\n")
  .filter(Boolean)
  .flatMap((line) => {
    const [title = "", text = ""] = (JSON.parse(line) as { contents: string }).contents.split("\n");
    return [title.replaceAll('"', ""), text.split(" ").slice(0, 6).join(" ")];
  })
  .filter((q) => q.trim() !== "");

describe("search on worker threads", () => {
  const indexDir = join(mkdtempSync(join(tmpdir(), "rlf-search-pool-")), "index");
  // One after the other: the first builds and saves the index, the pooled one then reads what it saved
  // (two builds into one directory at once would race each other's files).
  const opened = (async () => {
    const single = await openBm25Retriever({ corpus: SAMPLE_CORPUS, indexDir });
    // Read, not mapped (`--no-mmap`): the threads share SharedArrayBuffers (index-mmap.test.ts maps).
    const pooled = await openBm25Retriever({ corpus: SAMPLE_CORPUS, indexDir, workers: 2, mmap: false });
    return [single, pooled] as const;
  })();
  afterAll(async () => {
    for (const { retriever } of await opened) await retriever.close();
  });

  it("answers every query of a batch as the single-threaded path does (ids, order, scores)", async () => {
    const [single, pooled] = await opened;
    expect(pooled.retriever.pool?.workers).toBe(2);
    expect(single.retriever.pool).toBeUndefined();
    // The pooled retriever reads the arrays the other one saved, into shared memory.
    expect(pooled.mapped).toBe(false);
    expect(pooled.retriever.index.data.postingDocs.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(queries.length).toBeGreaterThan(400);
    const expected = await single.retriever.retrieve(queries, 10);
    const got = await pooled.retriever.retrieve(queries, 10);
    expect(got).toEqual(expected);
    expect(expected.filter((hits) => hits.length === 10).length).toBeGreaterThan(400);
  });
});
