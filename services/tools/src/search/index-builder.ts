// Builds the index files of a corpus out of core, in one streaming pass: each passage is analyzed
// once and its (term, tf) pairs go to the current segment; a segment that reaches `segmentPostings`
// postings is inverted and written to disk (index-segment.ts). At the end the segments are merged term
// by term into the index files (segment-merge.ts), block maxima included. Peak memory: one segment
// (about 16 bytes per posting while it is inverted) plus 9 bytes per passage (norm and offset).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { averageLength } from "./block-maxima.ts";
import type { Bm25Params } from "./bm25.ts";
import { type CorpusScan, scanCorpus } from "./corpus-reader.ts";
import { GrowableArray } from "./growable-array.ts";
import { INDEX_FILES } from "./index-files.ts";
import { type SegmentFiles, SegmentInverter } from "./index-segment.ts";
import { SegmentAnalyzer } from "./segment-analyzer.ts";
import { mergeSegments } from "./segment-merge.ts";
import { intToByte4 } from "./small-float.ts";

/** Postings per segment by default: about 270 MB of build memory while a segment is inverted. */
export const DEFAULT_SEGMENT_POSTINGS = 16_000_000;

/** What meta.json records of a built index. */
export interface BuiltIndexStats {
  docCount: number;
  fieldDocCount: number;
  sumTotalTermFreq: number;
  numTerms: number;
  numPostings: number;
  numBlocks: number;
  tfBytes: 2 | 4;
  segments: number;
}

export interface BuiltIndex {
  stats: BuiltIndexStats;
  corpus: CorpusScan;
}

/**
 * Writes the index files of `corpusPath` into `dir` (which must exist); the block maxima are computed
 * for `params`. Segments go to `dir/segments` and are removed after the merge.
 */
export async function buildIndexFiles(
  corpusPath: string,
  params: Bm25Params,
  dir: string,
  segmentPostings = DEFAULT_SEGMENT_POSTINGS,
): Promise<BuiltIndex> {
  const segmentsDir = join(dir, "segments");
  mkdirSync(segmentsDir, { recursive: true });
  const segment = new SegmentInverter();
  const analyzer = new SegmentAnalyzer(segment);
  const segments: SegmentFiles[] = [];
  const flush = () => {
    const segmentDir = join(segmentsDir, String(segments.length));
    mkdirSync(segmentDir);
    segments.push(segment.write(segmentDir));
  };
  const norms = new GrowableArray<Uint8Array>(Uint8Array);
  const docOffsets = new GrowableArray<Float64Array>(Float64Array);
  let fieldDocCount = 0;
  let sumTotalTermFreq = 0;

  try {
    const corpus = await scanCorpus(corpusPath, (passage, offset) => {
      const doc = docOffsets.length;
      docOffsets.push(offset);
      const length = analyzer.add(doc, passage.contents);
      norms.push(intToByte4(length));
      if (length > 0) fieldDocCount++;
      sumTotalTermFreq += length;
      if (segment.numPostings >= segmentPostings) flush();
    });
    if (segment.numPostings > 0 || segments.length === 0) flush();
    const docCount = docOffsets.length;
    docOffsets.push(corpus.size);
    const normBytes = norms.view();
    writeFileSync(join(dir, INDEX_FILES.norms), normBytes);
    const offsets = docOffsets.view();
    writeFileSync(join(dir, INDEX_FILES.docOffsets), new Uint8Array(offsets.buffer, 0, offsets.byteLength));
    const wideTfs = analyzer.maxTf > 0xffff;
    const merged = mergeSegments(
      {
        segments,
        norms: normBytes,
        avgdl: averageLength({ fieldDocCount, sumTotalTermFreq }),
        params,
        wideTfs,
      },
      dir,
      INDEX_FILES,
    );
    return {
      corpus,
      stats: {
        docCount,
        fieldDocCount,
        sumTotalTermFreq,
        ...merged,
        tfBytes: wideTfs ? 4 : 2,
        segments: segments.length,
      },
    };
  } finally {
    rmSync(segmentsDir, { recursive: true, force: true });
  }
}
