// Index-time analysis straight into a segment's term ids. The tokens of a corpus repeat heavily (Zipf),
// so each distinct token, as the tokenizer emits it, is analyzed once (english-analyzer.ts analyzeToken)
// and cached with its term and that term's id in the current segment. The cache is an open-addressing
// hash table keyed by the token's characters where they lie in the passage text, so a repeated token
// costs one hash over its characters and one comparison, and no string is cut out of the text for it.
// A slot's hash, key, id and generation sit side by side in one Int32Array (one cache line per probe);
// the keys' characters are packed in one Uint16Array. Term frequencies are counted in a reusable scratch
// array indexed by term id.
import { analyzeToken, scanTokens, type TokenSink } from "./english-analyzer.ts";
import type { SegmentInverter } from "./index-segment.ts";

/** Distinct tokens kept by default; the cache starts over when it is full (bounded memory on any corpus). */
export const TOKEN_CACHE_LIMIT = 1_000_000;

const INITIAL_SLOTS = 1 << 12;
// A slot's fields in `slots` (SLOT_INTS per slot); an empty slot has KEY_LENGTH 0 (tokens are never empty).
const SLOT_INTS = 8;
const HASH = 0;
const KEY_LENGTH = 1;
const KEY_START = 2;
/** The term's id in the segment of GENERATION, or DROPPED. */
const ID = 3;
const GENERATION = 4;
/** Index of the token's term in `terms`. */
const TERM = 5;
/** ID of a token whose analysis drops it (stop word, empty). */
const DROPPED = -1;

export class SegmentAnalyzer implements TokenSink {
  private readonly segment: SegmentInverter;
  private readonly cacheLimit: number;
  private slots = new Int32Array(0);
  private slotMask = 0;
  private size = 0;
  /** The cached tokens' characters. */
  private keyChars = new Uint16Array(1 << 16);
  private keyCharsUsed = 0;
  /** The cached tokens' terms, in order of caching (undefined: dropped). */
  private terms: (string | undefined)[] = [];
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
    this.startOver();
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
    let slots = this.slots;
    let at = (h & this.slotMask) * SLOT_INTS;
    for (;;) {
      const keyLength = slots[at + KEY_LENGTH] as number;
      if (keyLength === 0) {
        at = this.insert(text, start, end, h);
        slots = this.slots;
        break;
      }
      if (
        slots[at + HASH] === h &&
        keyLength === len &&
        this.sameKey(slots[at + KEY_START] as number, text, start, len)
      )
        break;
      at = (at + SLOT_INTS) & (slots.length - 1);
    }
    let id = slots[at + ID] as number;
    if (id === DROPPED) return;
    const generation = this.segment.generation;
    if (slots[at + GENERATION] !== generation) {
      id = this.segment.termId(this.terms[slots[at + TERM] as number] as string);
      slots[at + ID] = id;
      slots[at + GENERATION] = generation;
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

  private sameKey(keyStart: number, text: string, start: number, len: number): boolean {
    const chars = this.keyChars;
    for (let i = 0; i < len; i++) if (chars[keyStart + i] !== text.charCodeAt(start + i)) return false;
    return true;
  }

  /** Caches the token `text.slice(start, end)` (hash `h`, not cached yet) with its analysis; returns its slot. */
  private insert(text: string, start: number, end: number, h: number): number {
    if (this.size >= this.cacheLimit) this.startOver();
    else if (2 * (this.size + 1) > this.slots.length / SLOT_INTS) this.rehash();
    const len = end - start;
    if (this.keyCharsUsed + len > this.keyChars.length) {
      const bigger = new Uint16Array(Math.max(this.keyChars.length * 2, this.keyCharsUsed + len));
      bigger.set(this.keyChars);
      this.keyChars = bigger;
    }
    const keyStart = this.keyCharsUsed;
    for (let i = 0; i < len; i++) this.keyChars[keyStart + i] = text.charCodeAt(start + i);
    this.keyCharsUsed += len;
    const term = analyzeToken(text.slice(start, end));
    const at = this.place(h);
    const slots = this.slots;
    slots[at + HASH] = h;
    slots[at + KEY_LENGTH] = len;
    slots[at + KEY_START] = keyStart;
    slots[at + ID] = term === undefined ? DROPPED : 0;
    slots[at + GENERATION] = -1;
    slots[at + TERM] = this.terms.length;
    this.terms.push(term);
    this.size++;
    return at;
  }

  /** The first empty slot for hash `h` (as an index into `slots`). */
  private place(h: number): number {
    const slots = this.slots;
    let slot = h & this.slotMask;
    while (slots[slot * SLOT_INTS + KEY_LENGTH] !== 0) slot = (slot + 1) & this.slotMask;
    return slot * SLOT_INTS;
  }

  private startOver(): void {
    this.slots = new Int32Array(INITIAL_SLOTS * SLOT_INTS);
    this.slotMask = INITIAL_SLOTS - 1;
    this.size = 0;
    this.keyCharsUsed = 0;
    this.terms = [];
  }

  private rehash(): void {
    const old = this.slots;
    const numSlots = (old.length / SLOT_INTS) * 2;
    this.slots = new Int32Array(numSlots * SLOT_INTS);
    this.slotMask = numSlots - 1;
    for (let from = 0; from < old.length; from += SLOT_INTS) {
      if (old[from + KEY_LENGTH] === 0) continue;
      const to = this.place(old[from + HASH] as number);
      this.slots.set(old.subarray(from, from + SLOT_INTS), to);
    }
  }
}

function grown(array: Uint32Array<ArrayBuffer>, atLeast: number): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(Math.max(atLeast, array.length * 2));
  bigger.set(array);
  return bigger;
}
