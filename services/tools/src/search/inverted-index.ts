// The BM25 inverted index in compact typed arrays, and its query evaluation.
//
// Memory: per posting 4 bytes (doc id) + 2 bytes (term frequency; 4 if some tf > 65535); per passage
// 1 byte (norm) + 8 bytes (its byte offset in the corpus file) + 12 bytes of query scratch space;
// per distinct term its UTF-8 bytes + 12 bytes. Passage text stays in the corpus file.
import { Buffer } from "node:buffer";
import { type Bm25Params, idf, inverseNormTable, termScore } from "./bm25.ts";

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
}

export interface ScoredDoc {
  doc: number;
  score: number;
}

export class InvertedIndex {
  readonly data: InvertedIndexData;
  readonly numTerms: number;
  private readonly terms: Buffer;
  private readonly inverseNorms: Float32Array;
  private readonly scores: Float64Array;
  private readonly touched: Uint32Array;

  constructor(data: InvertedIndexData, params: Bm25Params) {
    this.data = data;
    this.numTerms = data.termOffsets.length - 1;
    this.terms = Buffer.from(data.termBytes.buffer, data.termBytes.byteOffset, data.termBytes.byteLength);
    const avgdl = data.fieldDocCount === 0 ? 1 : data.sumTotalTermFreq / data.fieldDocCount;
    this.inverseNorms = inverseNormTable(params, avgdl);
    this.scores = new Float64Array(data.docCount);
    this.touched = new Uint32Array(data.docCount);
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

  /**
   * The top `k` passages for analyzed query terms, Lucene-style: a disjunction of the distinct
   * terms, each boosted by its count in the query (as pyserini/Anserini build queries). Ties go to
   * the earlier passage, as in Lucene's TopScoreDocCollector.
   */
  search(queryTerms: readonly string[], k: number): ScoredDoc[] {
    const counts = new Map<string, number>();
    for (const term of queryTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
    const { postingOffsets, postingDocs, postingTfs, norms, fieldDocCount } = this.data;
    const { scores, touched, inverseNorms } = this;
    let numTouched = 0;
    for (const [term, boost] of counts) {
      const t = this.lookup(term);
      if (t < 0) continue;
      const start = postingOffsets[t] ?? 0;
      const end = postingOffsets[t + 1] ?? 0;
      const weight = Math.fround(boost * idf(fieldDocCount, end - start));
      for (let p = start; p < end; p++) {
        const doc = postingDocs[p] as number;
        const s = termScore(weight, postingTfs[p] as number, inverseNorms[norms[doc] as number] as number);
        if (scores[doc] === 0) touched[numTouched++] = doc;
        scores[doc] = (scores[doc] as number) + s;
      }
    }
    const top = new TopK(k);
    for (let i = 0; i < numTouched; i++) {
      const doc = touched[i] as number;
      top.offer(doc, Math.fround(scores[doc] as number));
      scores[doc] = 0;
    }
    return top.sorted();
  }
}

/** A bounded min-heap keeping the k best (score desc, doc asc). */
class TopK {
  private readonly k: number;
  private readonly heap: ScoredDoc[] = [];

  constructor(k: number) {
    this.k = k;
  }

  /** a is worse than b */
  private static worse(a: ScoredDoc, b: ScoredDoc): boolean {
    return a.score === b.score ? a.doc > b.doc : a.score < b.score;
  }

  offer(doc: number, score: number): void {
    const heap = this.heap;
    const entry = { doc, score };
    if (heap.length < this.k) {
      heap.push(entry);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopK.worse(heap[i] as ScoredDoc, heap[parent] as ScoredDoc)) break;
        [heap[i], heap[parent]] = [heap[parent] as ScoredDoc, heap[i] as ScoredDoc];
        i = parent;
      }
      return;
    }
    if (this.k === 0 || TopK.worse(entry, heap[0] as ScoredDoc)) return;
    heap[0] = entry;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && TopK.worse(heap[l] as ScoredDoc, heap[worst] as ScoredDoc)) worst = l;
      if (r < heap.length && TopK.worse(heap[r] as ScoredDoc, heap[worst] as ScoredDoc)) worst = r;
      if (worst === i) break;
      [heap[i], heap[worst]] = [heap[worst] as ScoredDoc, heap[i] as ScoredDoc];
      i = worst;
    }
  }

  sorted(): ScoredDoc[] {
    return [...this.heap].sort((a, b) => (TopK.worse(a, b) ? 1 : TopK.worse(b, a) ? -1 : 0));
  }
}
