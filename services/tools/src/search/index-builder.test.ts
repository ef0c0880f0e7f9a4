// The out-of-core build: an index built in many small segments and merged is byte for byte the index
// built in one segment, and the segments are gone afterwards.
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { DEFAULT_BM25 } from "./bm25.ts";
import { buildHotpotqaCorpus } from "./hotpotqa-corpus.ts";
import { buildIndexFiles } from "./index-builder.ts";
import { INDEX_FILES } from "./index-files.ts";

describe("out-of-core index build", () => {
  it("merges many segments into the same files as one segment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rlf-search-segments-"));
    const corpus = join(dir, "hotpotqa.jsonl");
    await buildHotpotqaCorpus(sharedDataPath("hotpotqa/hotpot_dev_distractor_first100_hf.json"), corpus);
    const build = async (name: string, segmentPostings?: number) => {
      const out = join(dir, name);
      mkdirSync(out);
      return { out, ...(await buildIndexFiles(corpus, DEFAULT_BM25, out, segmentPostings)) };
    };
    const one = await build("one");
    const many = await build("many", 2000);
    expect(one.stats.segments).toBe(1);
    expect(many.stats.segments).toBeGreaterThan(10);
    expect(many.stats).toEqual({ ...one.stats, segments: many.stats.segments });
    expect(one.stats.numPostings).toBeGreaterThan(20 * 2000);
    for (const file of Object.values(INDEX_FILES)) {
      const bytes = readFileSync(join(one.out, file));
      expect(bytes.length, file).toBeGreaterThan(0);
      expect(readFileSync(join(many.out, file)).equals(bytes), file).toBe(true);
    }
    expect(existsSync(join(many.out, "segments"))).toBe(false);
  });
});
