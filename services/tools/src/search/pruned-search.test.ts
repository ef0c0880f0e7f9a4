// Dynamic pruning returns exactly the hits of exhaustive scoring: same passages, same order, same
// float32 scores, over corpora where the pruning has blocks to skip (a Zipf-worded corpus of a few
// thousand passages, whose common terms span dozens of posting blocks) and over real questions.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rngStream } from "@rlfactory/kit";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { openBm25Retriever } from "./bm25-retriever.ts";
import { analyze } from "./english-analyzer.ts";
import { buildHotpotqaCorpus } from "./hotpotqa-corpus.ts";
import type { InvertedIndex } from "./inverted-index.ts";

const dir = mkdtempSync(join(tmpdir(), "rlf-search-pruned-"));

/** A corpus of `passages` passages of 20-60 words drawn from a Zipf vocabulary, and queries of its words. */
function zipfCorpus(passages: number, seed: number): { corpus: string; queries: string[] } {
  const random = rngStream(seed);
  const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x`);
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < vocabulary.length; i++) {
    total += 1 / (i + 1);
    cdf.push(total);
  }
  const word = () => {
    const x = random() * total;
    let i = 0;
    while ((cdf[i] as number) < x) i++;
    return vocabulary[i] as string;
  };
  const lines: string[] = [];
  for (let i = 0; i < passages; i++) {
    const words = Array.from({ length: 20 + Math.floor(random() * 41) }, word);
    lines.push(JSON.stringify({ id: String(i), contents: `"${word()}"\n${words.join(" ")}` }));
  }
  const corpus = join(dir, `zipf-${seed}.jsonl`);
  writeFileSync(corpus, `${lines.join("\n")}\n`);
  const queries = Array.from({ length: 400 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 7) }, word).join(" "),
  );
  return { corpus, queries };
}

function expectSameAsExhaustive(index: InvertedIndex, queries: readonly string[], ks: readonly number[]) {
  let compared = 0;
  for (const query of queries) {
    const terms = analyze(query);
    for (const k of ks) {
      expect(index.search(terms, k), `${query} (top ${k})`).toEqual(index.searchExhaustive(terms, k));
      compared++;
    }
  }
  return compared;
}

describe("pruned search equals exhaustive scoring", () => {
  it("on a Zipf-worded corpus, for top 1, 3, 10 and 100, with repeated query words", async () => {
    const { corpus, queries } = zipfCorpus(6000, 7);
    const { retriever } = await openBm25Retriever({ corpus, indexDir: join(dir, "zipf-index") });
    const index = retriever.index;
    // The corpus has the shape pruning works on: a common term over many blocks, a tied score.
    expect(index.docFreq("w0x")).toBeGreaterThan(20 * 128);
    expect(queries.filter((q) => new Set(q.split(" ")).size < q.split(" ").length).length).toBeGreaterThan(
      20,
    );
    expect(expectSameAsExhaustive(index, queries, [1, 3, 10, 100])).toBe(1600);
    expect(index.search(analyze("w0x"), 10).map((h) => h.score)).toEqual(
      index.searchExhaustive(analyze("w0x"), 10).map((h) => h.score),
    );
    await retriever.close();
  });

  it("when the saved index is reopened with other BM25 parameters (its block maxima recomputed)", async () => {
    const { corpus, queries } = zipfCorpus(3000, 11);
    const indexDir = join(dir, "params-index");
    const first = await openBm25Retriever({ corpus, indexDir });
    await first.retriever.close();
    const reopened = await openBm25Retriever({ corpus, indexDir, bm25: { k1: 1.2, b: 0.75 } });
    expect(reopened.built).toBe(false);
    expect(reopened.retriever.index.savedMaximaUsed).toBe(false);
    expect(expectSameAsExhaustive(reopened.retriever.index, queries, [10])).toBe(400);
    await reopened.retriever.close();
  });

  it("on the 100 HotpotQA dev questions over their 991 pooled paragraphs", async () => {
    const hotpotqa = sharedDataPath("hotpotqa/hotpot_dev_distractor_first100_hf.json");
    const corpus = join(dir, "hotpotqa.jsonl");
    await buildHotpotqaCorpus(hotpotqa, corpus);
    const questions = (JSON.parse(readFileSync(hotpotqa, "utf8")) as { question: string }[]).map(
      (r) => r.question,
    );
    const { retriever } = await openBm25Retriever({ corpus, indexDir: join(dir, "hotpotqa-index") });
    expect(expectSameAsExhaustive(retriever.index, questions, [3, 10])).toBe(200);
    await retriever.close();
  });
});
