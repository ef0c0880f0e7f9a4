// Index-time analysis straight into a segment's term ids. The tokens of a corpus repeat heavily (Zipf),
// so each distinct token, as the tokenizer emits it, is analyzed once (english-analyzer.ts analyzeToken)
// and cached with its term and that term's id in the current segment: a repeated token costs one Map
// lookup. Term frequencies are counted in a reusable scratch array indexed by term id.
import { analyzeToken, scanTokens, type TokenSink } from "./english-analyzer.ts";
import type { SegmentInverter } from "./index-segment.ts";

interface CachedToken {
  /** The token's term; undefined when the analysis drops the token (stop word, empty). */
  readonly term: string | undefined;
  /** The term's id in segment generation `generation`. */
  id: number;
  generation: number;
}

/** Distinct tokens kept by default; the cache starts over when it is full (bounded memory on any corpus). */
export const TOKEN_CACHE_LIMIT = 1_000_000;

export class SegmentAnalyzer implements TokenSink {
  private readonly segment: SegmentInverter;
  private readonly cacheLimit: number;
  private readonly cache = new Map<string, CachedToken>();
  /** tf of each term id in the passage being added; zero outside `add`. */
  private counts = new Uint32Array(1 << 16);
  /** The passage's distinct term ids, in order of first occurrence. */
  private distinct = new Uint32Array(1024);
  private numDistinct = 0;
  private length = 0;
  /** The largest tf added so far. */
  maxTf = 0;

  constructor(segment: SegmentInverter, cacheLimit = TOKEN_CACHE_LIMIT) {
    this.segment = segment;
    this.cacheLimit = cacheLimit;
  }

  /** Analyzes `text` as passage `doc` into the segment; returns its field length (number of terms). */
  add(doc: number, text: string): number {
    this.length = 0;
    this.numDistinct = 0;
    scanTokens(text, this);
    const { counts, distinct, segment } = this;
    for (let i = 0; i < this.numDistinct; i++) {
      const id = distinct[i] as number;
      const tf = counts[id] as number;
      counts[id] = 0;
      if (tf > this.maxTf) this.maxTf = tf;
      segment.addPosting(doc, id, tf);
    }
    return this.length;
  }

  /** @internal the tokenizer's callback. */
  token(token: string): void {
    let cached = this.cache.get(token);
    if (cached === undefined) {
      if (this.cache.size >= this.cacheLimit) this.cache.clear();
      const term = analyzeToken(token);
      cached = { term, id: -1, generation: -1 };
      this.cache.set(token, cached);
    }
    const term = cached.term;
    if (term === undefined) return;
    const generation = this.segment.generation;
    if (cached.generation !== generation) {
      cached.id = this.segment.termId(term);
      cached.generation = generation;
    }
    const id = cached.id;
    this.length++;
    if (id >= this.counts.length) this.counts = grown(this.counts, id + 1);
    const tf = this.counts[id] as number;
    this.counts[id] = tf + 1;
    if (tf === 0) {
      if (this.numDistinct === this.distinct.length)
        this.distinct = grown(this.distinct, this.numDistinct + 1);
      this.distinct[this.numDistinct++] = id;
    }
  }
}

function grown(array: Uint32Array<ArrayBuffer>, atLeast: number): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(Math.max(atLeast, array.length * 2));
  bigger.set(array);
  return bigger;
}
