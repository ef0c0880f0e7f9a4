// Lucene's BM25Similarity (Lucene 8+, as used by pyserini), in Lucene's float32 arithmetic:
//   idf(t)    = ln(1 + (N - df + 0.5) / (df + 0.5))                 (N: docs with the field)
//   score(t,d) = boost * idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))
// where dl is the document length decoded from its one-byte norm (see small-float.ts) and avgdl the
// exact mean length. Lucene 8 dropped the classic (k1 + 1) numerator factor; so do we. Per-term
// scores are float32, summed in float64 and rounded to float32, as Lucene's disjunction scorers do.
import { byte4ToInt } from "./small-float.ts";

const f = Math.fround;

export interface Bm25Params {
  k1: number;
  b: number;
}

/** pyserini's defaults (Lucene's own are k1 = 1.2, b = 0.75). */
export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4 };

export function idf(docCount: number, docFreq: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** `1 / (k1 * (1 - b + b * dl / avgdl))` for each of the 256 norm bytes, in float32 like Lucene's cache. */
export function inverseNormTable(params: Bm25Params, avgdl: number): Float32Array {
  const k1 = f(params.k1);
  const b = f(params.b);
  const avg = f(avgdl);
  const table = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    table[i] = f(1 / f(k1 * f(f(1 - b) + f(f(b * byte4ToInt(i)) / avg))));
  }
  return table;
}

/** One term's contribution: weight - weight / (1 + tf / norm), Lucene's monotonic rewrite of weight * tf / (tf + norm). */
export function termScore(weight: number, tf: number, inverseNorm: number): number {
  return f(weight - f(weight / f(1 + f(tf * inverseNorm))));
}
