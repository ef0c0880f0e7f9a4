// The BM25 inverted index in compact typed arrays, and its query evaluation.
//
// Memory: per posting 4 bytes (doc id) + 2 bytes (term frequency; 4 if some tf > 65535); per block of
// 128 postings 4 bytes (its impact bound, block-maxima.ts); per passage 1 byte (norm) + 8 bytes (its
// byte offset in the corpus file); per distinct term its UTF-8 bytes + 20 bytes. Passage text stays in
// the corpus file. Queries run with dynamic pruning (max-score-search.ts); `searchExhaustive` scores
// every posting and is the reference the pruned search is checked against.
import { Buffer } from "node:buffer";
import { averageLength, computeBlockMaxima, termBlockStarts } from "./block-maxima.ts";
import { type Bm25Params, idf, inverseNormTable, termScore } from "./bm25.ts";
import { MaxScoreSearch } from "./max-score-search.ts";
import { type ScoredDoc, TopKHeap } from "./top-k-heap.ts";

export type { ScoredDoc } from "./top-k-heap.ts";

export interface InvertedIndexData {
  /** Passages in the corpus (lines with a record), including ones with no indexed term. */
  docCount: number;
  /** Passages with at least one indexed term: Lucene's CollectionStatistics.docCount. */
  fieldDocCount: number;
  /** Total indexed terms over all passages (Lucene's sumTotalTermFreq). */
  sumTotalTermFreq: number;
  /** The distinct terms, sorted (JS string order), UTF-8 concatenated. */
  termBytes: Uint8Array;
  /** termBytes offsets: term i is termBytes[termOffsets[i], termOffsets[i + 1]). */
  termOffsets: Uint32Array;
  /** Postings of term i: postingDocs/postingTfs[postingOffsets[i], postingOffsets[i + 1]), docs ascending. */
  postingOffsets: Float64Array;
  postingDocs: Uint32Array;
  postingTfs: Uint16Array | Uint32Array;
  /** Per passage: its length (indexed terms) as Lucene's one-byte norm (SmallFloat.intToByte4). */
  norms: Uint8Array;
  /** Per passage: the byte offset of its line in the corpus file; [docCount] is the file size. */
  docOffsets: Float64Array;
  /** Per posting block, term by term: the block's largest tf · inverseNorm (block-maxima.ts). */
  blockMaxima: Float32Array;
  /** The BM25 parameters blockMaxima were computed for. */
  blockMaximaParams: Bm25Params;
}

export class InvertedIndex {
  readonly data: InvertedIndexData;
  readonly numTerms: number;
  /** false when the saved block maxima were for other BM25 parameters and were recomputed. */
  readonly savedMaximaUsed: boolean;
  private readonly terms: Buffer;
  private readonly fieldDocCount: number;
  private readonly blockStarts: Float64Array;
  private readonly inverseNorms: Float32Array;
  private readonly pruned: MaxScoreSearch;
  private readonly top = new TopKHeap();
  private readonly termCounts = new Map<number, number>();
  private scratch?: { scores: Float64Array; touched: Uint32Array };

  constructor(data: InvertedIndexData, params: Bm25Params) {
    this.data = data;
    this.numTerms = data.termOffsets.length - 1;
    this.fieldDocCount = data.fieldDocCount;
    this.terms = Buffer.from(data.termBytes.buffer, data.termBytes.byteOffset, data.termBytes.byteLength);
    this.inverseNorms = inverseNormTable(params, averageLength(data));
    this.blockStarts = termBlockStarts(data.postingOffsets);
    this.savedMaximaUsed = data.blockMaximaParams.k1 === params.k1 && data.blockMaximaParams.b === params.b;
    const blockMaxima = this.savedMaximaUsed ? data.blockMaxima : computeBlockMaxima(data, params);
    this.pruned = new MaxScoreSearch({
      docCount: data.docCount,
      postingOffsets: data.postingOffsets,
      postingDocs: data.postingDocs,
      postingTfs: data.postingTfs,
      norms: data.norms,
      blockStarts: this.blockStarts,
      blockMaxima,
      inverseNorms: this.inverseNorms,
    });
  }

  /** The term's index in the sorted dictionary, or -1. */
  lookup(term: string): number {
    let lo = 0;
    let hi = this.numTerms - 1;
    const offsets = this.data.termOffsets;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const probe = this.terms.toString("utf8", offsets[mid] ?? 0, offsets[mid + 1] ?? 0);
      if (probe === term) return mid;
      if (probe < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  docFreq(term: string): number {
    const t = this.lookup(term);
    return t < 0 ? 0 : (this.data.postingOffsets[t + 1] ?? 0) - (this.data.postingOffsets[t] ?? 0);
  }

  /** Distinct indexed query terms with their counts in the query (Anserini's boosts). */
  private queryTerms(queryTerms: readonly string[]): Map<number, number> {
    const counts = this.termCounts;
    counts.clear();
    for (const term of queryTerms) {
      const t = this.lookup(term);
      if (t >= 0) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return counts;
  }

  private weight(t: number, boost: number): number {
    const df = (this.data.postingOffsets[t + 1] as number) - (this.data.postingOffsets[t] as number);
    return Math.fround(boost * idf(this.fieldDocCount, df));
  }

  /**
   * The top `k` passages for analyzed query terms, Lucene-style: a disjunction of the distinct
   * terms, each boosted by its count in the query (as pyserini/Anserini build queries). Ties go to
   * the earlier passage, as in Lucene's TopScoreDocCollector. Dynamic pruning (block-max MaxScore):
   * the same hits and scores as `searchExhaustive`, without scoring most postings.
   */
  search(queryTerms: readonly string[], k: number): ScoredDoc[] {
    if (k <= 0) return [];
    const { postingOffsets } = this.data;
    const search = this.pruned;
    search.reset();
    for (const [t, boost] of this.queryTerms(queryTerms)) {
      search.addClause(
        postingOffsets[t] as number,
        postingOffsets[t + 1] as number,
        this.blockStarts[t] as number,
        this.weight(t, boost),
      );
    }
    this.top.reset(k);
    search.run(this.top);
    return this.top.sorted();
  }

  /** Scores every posting of every query term (term at a time): the reference `search` must equal. */
  searchExhaustive(queryTerms: readonly string[], k: number): ScoredDoc[] {
    if (k <= 0) return [];
    const { postingOffsets, postingDocs, postingTfs, norms, docCount } = this.data;
    this.scratch ??= { scores: new Float64Array(docCount), touched: new Uint32Array(docCount) };
    const { scores, touched } = this.scratch;
    const { inverseNorms } = this;
    let numTouched = 0;
    for (const [t, boost] of this.queryTerms(queryTerms)) {
      const start = postingOffsets[t] as number;
      const end = postingOffsets[t + 1] as number;
      const weight = this.weight(t, boost);
      for (let p = start; p < end; p++) {
        const doc = postingDocs[p] as number;
        const s = termScore(weight, postingTfs[p] as number, inverseNorms[norms[doc] as number] as number);
        if (scores[doc] === 0) touched[numTouched++] = doc;
        scores[doc] = (scores[doc] as number) + s;
      }
    }
    const top = this.top;
    top.reset(k);
    for (let i = 0; i < numTouched; i++) {
      const doc = touched[i] as number;
      top.offer(doc, Math.fround(scores[doc] as number));
      scores[doc] = 0;
    }
    return top.sorted();
  }
}
