// Impact bounds for dynamic pruning. Each term's postings are cut into blocks of POSTING_BLOCK_SIZE
// (the last one shorter); per block the index keeps the largest `tf · inverseNorm(dl)` of its postings
// in float32. BM25's per-term score `w - w / (1 + tf · inverseNorm)` only grows with that product, so
// `termScore(w, blockMax, 1)` is exactly the best score any posting of the block can give: the bound
// block-max MaxScore (max-score-search.ts) prunes with. The bound depends on k1, b and avgdl, so the
// maxima are stored with the BM25 parameters they were computed for and recomputed for others.
import { type Bm25Params, inverseNormTable } from "./bm25.ts";

export const POSTING_BLOCK_SIZE = 128;

/** What the maxima are computed from: the postings, the norms and the collection statistics. */
export interface PostingsForMaxima {
  fieldDocCount: number;
  sumTotalTermFreq: number;
  postingOffsets: Float64Array;
  postingDocs: Uint32Array;
  postingTfs: Uint16Array | Uint32Array;
  norms: Uint8Array;
}

export function averageLength(data: { fieldDocCount: number; sumTotalTermFreq: number }): number {
  return data.fieldDocCount === 0 ? 1 : data.sumTotalTermFreq / data.fieldDocCount;
}

/** Index of each term's first block; [numTerms] is the number of blocks. */
export function termBlockStarts(postingOffsets: Float64Array): Float64Array {
  const numTerms = postingOffsets.length - 1;
  const starts = new Float64Array(numTerms + 1);
  for (let t = 0; t < numTerms; t++) {
    const df = (postingOffsets[t + 1] as number) - (postingOffsets[t] as number);
    starts[t + 1] = (starts[t] as number) + Math.ceil(df / POSTING_BLOCK_SIZE);
  }
  return starts;
}

export function computeBlockMaxima(data: PostingsForMaxima, params: Bm25Params): Float32Array {
  const { postingOffsets, postingDocs, postingTfs, norms } = data;
  const inverseNorms = inverseNormTable(params, averageLength(data));
  const starts = termBlockStarts(postingOffsets);
  const numTerms = postingOffsets.length - 1;
  const maxima = new Float32Array(starts[numTerms] as number);
  let block = 0;
  for (let t = 0; t < numTerms; t++) {
    const end = postingOffsets[t + 1] as number;
    for (let p = postingOffsets[t] as number; p < end; block++) {
      const blockEnd = Math.min(p + POSTING_BLOCK_SIZE, end);
      let max = 0;
      for (; p < blockEnd; p++) {
        const x = Math.fround(
          (postingTfs[p] as number) * (inverseNorms[norms[postingDocs[p] as number] as number] as number),
        );
        if (x > max) max = x;
      }
      maxima[block] = max;
    }
  }
  return maxima;
}
