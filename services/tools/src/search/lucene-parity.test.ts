// Our analysis and BM25 rankings against committed outputs of real Lucene (see reference/README.md).
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bm25Retriever, openBm25Retriever } from "./bm25-retriever.ts";
import { analyze } from "./english-analyzer.ts";
import { SAMPLE_CORPUS } from "./search-server.ts";

const reference = (name: string) =>
  JSON.parse(readFileSync(new URL(`reference/${name}`, import.meta.url), "utf8"));
const analysis = reference("lucene-analysis.json") as { text: string; terms: string[] }[];
const rankings = reference("lucene-bm25-top10.json") as {
  k1: number;
  b: number;
  queries: { query: string; hits: { id: string; score: number }[] }[];
};

describe("EnglishAnalyzer parity with Lucene", () => {
  it.each(analysis.map((a) => [a.text.slice(0, 40), a] as const))("%s", (_, { text, terms }) => {
    expect(analyze(text)).toEqual(terms);
  });
});

describe("BM25 parity with Lucene over the sample corpus", () => {
  let retriever: Bm25Retriever;
  beforeAll(async () => {
    ({ retriever } = await openBm25Retriever({
      corpus: SAMPLE_CORPUS,
      indexDir: join(mkdtempSync(join(tmpdir(), "rlf-search-parity-")), "index"),
      bm25: { k1: rankings.k1, b: rankings.b },
    }));
  });
  afterAll(() => retriever.close());

  it("has a reference for a dozen queries, most with ten hits", () => {
    expect(rankings.queries.length).toBeGreaterThanOrEqual(10);
    expect(rankings.queries.filter((q) => q.hits.length === 10).length).toBeGreaterThanOrEqual(10);
  });

  it.each(rankings.queries.map((q) => [q.query, q] as const))("%s", async (_, { query, hits }) => {
    const [ours = []] = await retriever.retrieve([query], 10);
    expect(ours.map((h) => h.id)).toEqual(hits.map((h) => h.id));
    for (const [i, hit] of hits.entries()) {
      expect(Math.abs((ours[i]?.score ?? Number.NaN) - hit.score)).toBeLessThanOrEqual(1e-4 * hit.score);
    }
  });
});
