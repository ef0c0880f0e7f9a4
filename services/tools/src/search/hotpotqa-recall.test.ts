// Retrieval quality on real questions: the 100 HotpotQA dev records with context paragraphs pooled
// into one corpus (991 passages); each question should retrieve its gold supporting paragraphs.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bm25Retriever, openBm25Retriever } from "./bm25-retriever.ts";
import { buildHotpotqaCorpus, contextParagraphs, type HotpotqaContext } from "./hotpotqa-corpus.ts";

const HOTPOTQA = sharedDataPath("hotpotqa/hotpot_dev_distractor_first100_hf.json");

interface HfRecord {
  question: string;
  supporting_facts: { title: string[] };
  context: HotpotqaContext;
}

describe("recall of gold HotpotQA paragraphs (BM25, question as query)", () => {
  const dir = mkdtempSync(join(tmpdir(), "rlf-search-recall-"));
  const records = JSON.parse(readFileSync(HOTPOTQA, "utf8")) as HfRecord[];
  let retriever: Bm25Retriever;
  const idOf = new Map<string, string>();
  beforeAll(async () => {
    const corpus = join(dir, "hotpotqa-corpus.jsonl");
    await buildHotpotqaCorpus(HOTPOTQA, corpus);
    for (const line of readFileSync(corpus, "utf8").trim().split("\n")) {
      const { id, contents } = JSON.parse(line) as { id: string; contents: string };
      idOf.set(contents, id);
    }
    ({ retriever } = await openBm25Retriever({ corpus, indexDir: join(dir, "index") }));
  });
  afterAll(() => retriever.close());

  it("finds most gold paragraphs in the top 3 and top 10", async () => {
    const gold = records.map((record) => {
      const titles = new Set(record.supporting_facts.title);
      return contextParagraphs(record.context)
        .filter((p) => titles.has(p.title))
        .map((p) => idOf.get(`"${p.title}"\n${p.text}`));
    });
    expect(gold.every((ids) => ids.length === 2 && ids.every((id) => id !== undefined))).toBe(true);
    const ranked = await retriever.retrieve(
      records.map((r) => r.question),
      10,
    );
    const recallAt = (k: number) => {
      let found = 0;
      let total = 0;
      for (const [i, ids] of gold.entries()) {
        const top = new Set(ranked[i]?.slice(0, k).map((h) => h.id));
        found += ids.filter((id) => top.has(id as string)).length;
        total += ids.length;
      }
      return found / total;
    };
    const r3 = recallAt(3);
    const r10 = recallAt(10);
    console.log(
      `HotpotQA dev (100 questions, 991 pooled passages): recall@3 = ${r3.toFixed(3)}, recall@10 = ${r10.toFixed(3)}`,
    );
    expect(r3).toBeGreaterThanOrEqual(0.65); // measured 0.670
    expect(r10).toBeGreaterThanOrEqual(0.85); // measured 0.900
  });
});
