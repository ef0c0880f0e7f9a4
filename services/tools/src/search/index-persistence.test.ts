// The BM25 index is built once, saved, and reused by later starts until the corpus changes.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { openBm25Retriever } from "./bm25-retriever.ts";
import { INDEX_FORMAT } from "./index-store.ts";

const EXAMPLE_CORPUS = sharedDataPath("search_r1_example/corpus.jsonl");

async function open(corpus: string, indexDir: string) {
  const opened = await openBm25Retriever({ corpus, indexDir });
  const [hits = [], zebra = []] = await opened.retriever.retrieve(["Pavia Cathedral dome", "zebra okapi"], 3);
  await opened.retriever.close();
  return { built: opened.built, ids: hits.map((h) => h.id), zebra: zebra.map((h) => h.id) };
}

describe("index persistence", () => {
  const dir = mkdtempSync(join(tmpdir(), "rlf-search-persist-"));
  const corpus = join(dir, "corpus.jsonl");
  const indexDir = join(dir, "index");
  copyFileSync(EXAMPLE_CORPUS, corpus);

  it("builds once, then reuses the saved index", async () => {
    const first = await open(corpus, indexDir);
    expect(first).toEqual({ built: true, ids: ["5", "4"], zebra: [] });
    expect(existsSync(join(indexDir, "meta.json"))).toBe(true);
    expect(await open(corpus, indexDir)).toEqual({ ...first, built: false });
  });

  it("reuses the index when only the corpus mtime changed (same contents)", async () => {
    utimesSync(corpus, new Date(), new Date(Date.now() + 60_000));
    expect((await open(corpus, indexDir)).built).toBe(false);
  });

  it("rebuilds when the corpus gains a passage", async () => {
    writeFileSync(
      corpus,
      `${readFileSync(EXAMPLE_CORPUS, "utf8")}{"id": "10", "contents": "\\"Okapi\\"\\nThe okapi is a zebra-striped giraffid."}\n`,
    );
    const changed = await open(corpus, indexDir);
    expect(changed).toMatchObject({ built: true, zebra: ["10"] });
    expect((await open(corpus, indexDir)).built).toBe(false);
  });

  it("rebuilds when the contents change at the same size", async () => {
    const before = readFileSync(corpus, "utf8");
    const after = before.replace("zebra-striped giraffid", "giraffid zebra-striped");
    expect(after.length).toBe(before.length);
    writeFileSync(corpus, after);
    const mtime = new Date(Date.now() + 120_000);
    utimesSync(corpus, mtime, mtime);
    expect(await open(corpus, indexDir)).toMatchObject({ built: true, zebra: ["10"] });
  });

  it("rebuilds an index saved in an older format (v1 had no block maxima)", async () => {
    const metaFile = join(indexDir, "meta.json");
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { format: string };
    writeFileSync(metaFile, JSON.stringify({ ...meta, format: "rlf-bm25-v1 lucene-english-porter" }));
    expect(await open(corpus, indexDir)).toMatchObject({ built: true, zebra: ["10"] });
    expect(JSON.parse(readFileSync(metaFile, "utf8")).format).toBe(INDEX_FORMAT);
  });

  it("rebuilds over a damaged index", async () => {
    writeFileSync(join(indexDir, "posting-docs.u32"), "garbage");
    expect((await open(corpus, indexDir)).built).toBe(true);
  });
});
