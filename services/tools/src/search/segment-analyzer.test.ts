// Index-time analysis through the token cache puts into the segments exactly the (term, tf) pairs of
// the token-at-a-time analysis, and the field lengths, across segment flushes and cache restarts.
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asciiEdgeTexts } from "./__fixtures__/ascii-edge-text.ts";
import { regexAnalyze } from "./__fixtures__/regex-analyzer.ts";
import { SEGMENT_FILES, SegmentInverter } from "./index-segment.ts";
import { SegmentAnalyzer } from "./segment-analyzer.ts";

/** Per doc, its terms with their tfs (sorted), read back from a written segment. */
function readSegment(dir: string): Map<number, [string, number][]> {
  const terms = readFileSync(join(dir, SEGMENT_FILES.terms), "utf8").split("\n");
  const bytes = (file: string) => {
    const b = readFileSync(join(dir, file));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  };
  const offsets = new Float64Array(bytes(SEGMENT_FILES.offsets));
  const docs = new Uint32Array(bytes(SEGMENT_FILES.docs));
  const tfs = new Uint32Array(bytes(SEGMENT_FILES.tfs));
  const byDoc = new Map<number, [string, number][]>();
  for (const [t, term] of terms.entries()) {
    for (let p = offsets[t] as number; p < (offsets[t + 1] as number); p++) {
      const doc = docs[p] as number;
      if (!byDoc.has(doc)) byDoc.set(doc, []);
      byDoc.get(doc)?.push([term, tfs[p] as number]);
    }
  }
  return byDoc;
}

function expectedPairs(text: string): [string, number][] {
  const counts = new Map<string, number>();
  for (const term of regexAnalyze(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe("index-time analysis into a segment", () => {
  it.each([
    ["a cache that starts over many times", 40],
    ["a cache that grows", undefined],
  ])(
    "adds the terms and tfs of the token-at-a-time analysis, over segment flushes, with %s",
    (_, cacheLimit) => {
      const dir = mkdtempSync(join(tmpdir(), "rlf-search-segment-analyzer-"));
      const texts = asciiEdgeTexts(3, 120);
      const segment = new SegmentInverter();
      const analyzer = new SegmentAnalyzer(segment, cacheLimit);
      const passages: string[] = [];
      const segmentDirs: string[] = [];
      for (let doc = 0; doc < 3000; doc++) {
        const text = texts.next();
        passages.push(text);
        expect(analyzer.add(doc, text), JSON.stringify(text)).toBe(regexAnalyze(text).length);
        if (doc % 700 === 699) {
          const out = join(dir, String(segmentDirs.length));
          mkdirSync(out);
          segment.write(out);
          segmentDirs.push(out);
        }
      }
      const out = join(dir, String(segmentDirs.length));
      mkdirSync(out);
      segment.write(out);
      segmentDirs.push(out);
      expect(segmentDirs.length).toBe(5);

      const found = new Map<number, [string, number][]>();
      for (const d of segmentDirs) for (const [doc, pairs] of readSegment(d)) found.set(doc, pairs);
      let postings = 0;
      for (const [doc, text] of passages.entries()) {
        const expected = expectedPairs(text);
        expect(found.get(doc) ?? [], JSON.stringify(text)).toEqual(expected);
        postings += expected.length;
      }
      expect(postings).toBeGreaterThan(20_000);
    },
  );
});
