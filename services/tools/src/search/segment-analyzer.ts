// Index-time analysis straight into a segment's term ids. The tokens of a corpus repeat heavily (Zipf),
// so each distinct token, as the tokenizer emits it, is analyzed once (english-analyzer.ts analyzeToken)
// and cached with its term and that term's id in the current segment. The cache is an open-addressing
// hash table keyed by the token's characters where they lie in the passage text, so a repeated token
// costs one hash over its characters and one comparison: no string is cut out of the text for it. Term
// frequencies are counted in a reusable scratch array indexed by term id.
import { analyzeToken, scanTokens, type TokenSink } from "./english-analyzer.ts";
import type { SegmentInverter } from "./index-segment.ts";

/** Distinct tokens kept by default; the cache starts over when it is full (bounded memory on any corpus). */
export const TOKEN_CACHE_LIMIT = 1_000_000;

const INITIAL_SLOTS = 1 << 12;
/** `ids` value of a token whose analysis drops it (stop word, empty). */
const DROPPED = -1;

export class SegmentAnalyzer implements TokenSink {
  private readonly segment: SegmentInverter;
  private readonly cacheLimit: number;
  // The token cache: per slot the token (undefined: empty slot), its hash, its term (undefined when
  // dropped), and the term's id in segment generation `generations[slot]`.
  private keys: (string | undefined)[] = [];
  private hashes = new Int32Array(0);
  private terms: (string | undefined)[] = [];
  private ids = new Int32Array(0);
  private generations = new Int32Array(0);
  private mask = 0;
  private size = 0;
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
    this.allocate(INITIAL_SLOTS);
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

  /** @internal the tokenizer's callback: the token `text.slice(start, end)`. */
  token(text: string, start: number, end: number): void {
    const len = end - start;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    const keys = this.keys;
    let slot = h & this.mask;
    for (;;) {
      const key = keys[slot];
      if (key === undefined) {
        slot = this.insert(text.slice(start, end), h);
        break;
      }
      if (this.hashes[slot] === h && key.length === len && sameChars(key, text, start)) break;
      slot = (slot + 1) & this.mask;
    }
    let id = this.ids[slot] as number;
    if (id === DROPPED) return;
    const generation = this.segment.generation;
    if (this.generations[slot] !== generation) {
      id = this.segment.termId(this.terms[slot] as string);
      this.ids[slot] = id;
      this.generations[slot] = generation;
    }
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

  /** Caches `token` (hash `h`, not cached yet) with its analysis; returns its slot. */
  private insert(token: string, h: number): number {
    if (this.size >= this.cacheLimit) this.allocate(INITIAL_SLOTS);
    else if (2 * (this.size + 1) > this.keys.length) this.rehash();
    const term = analyzeToken(token);
    const slot = this.place(token, h);
    this.terms[slot] = term;
    this.ids[slot] = term === undefined ? DROPPED : 0;
    this.generations[slot] = -1;
    this.size++;
    return slot;
  }

  private place(token: string, h: number): number {
    let slot = h & this.mask;
    while (this.keys[slot] !== undefined) slot = (slot + 1) & this.mask;
    this.keys[slot] = token;
    this.hashes[slot] = h;
    return slot;
  }

  private allocate(slots: number): void {
    this.keys = new Array<string | undefined>(slots).fill(undefined);
    this.terms = new Array<string | undefined>(slots).fill(undefined);
    this.hashes = new Int32Array(slots);
    this.ids = new Int32Array(slots);
    this.generations = new Int32Array(slots);
    this.mask = slots - 1;
    this.size = 0;
  }

  private rehash(): void {
    const { keys, hashes, terms, ids, generations } = this;
    this.allocate(keys.length * 2);
    for (let s = 0; s < keys.length; s++) {
      const key = keys[s];
      if (key === undefined) continue;
      const slot = this.place(key, hashes[s] as number);
      this.terms[slot] = terms[s];
      this.ids[slot] = ids[s] as number;
      this.generations[slot] = generations[s] as number;
      this.size++;
    }
  }
}

function sameChars(key: string, text: string, start: number): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}

function grown(array: Uint32Array<ArrayBuffer>, atLeast: number): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(Math.max(atLeast, array.length * 2));
  bigger.set(array);
  return bigger;
}
