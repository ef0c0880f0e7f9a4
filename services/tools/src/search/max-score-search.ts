// Top-k disjunctive BM25 with dynamic pruning: block-max MaxScore over windows of doc ids, the
// algorithm of Lucene's MaxScoreBulkScorer, returning exactly the hits exhaustive scoring returns.
//
// Doc ids are visited in ascending windows. For each window, every query term's best possible score
// in it is read from the block maxima of its postings (block-maxima.ts); the terms are sorted by that
// bound and the longest prefix whose bounds sum to no more than the current k-th best score becomes
// "non-essential": a passage matching only those cannot enter the top k. Only postings of essential
// terms are scanned (term at a time, into a bitset and score buffer of 4,096 docs); each such
// candidate then looks up the non-essential terms one by one, best bound first, and stops as soon as
// its score plus the remaining bounds cannot beat the k-th best. A window where every term is
// non-essential is skipped without touching its postings.
//
// Exactness: the bounds are the exact maxima of float32 per-term scores; a passage is dropped only
// when float32(sum of its bounds), slightly inflated, is not above the k-th best float32 score; and
// since passages arrive in ascending doc order, an equal score never displaces a kept (earlier) hit.

import { POSTING_BLOCK_SIZE } from "./block-maxima.ts";
import { termScore } from "./bm25.ts";
import type { TopKHeap } from "./top-k-heap.ts";

const B = POSTING_BLOCK_SIZE;
/** Docs per scoring buffer (Lucene's INNER_WINDOW_SIZE). */
const INNER_WINDOW = 4096;
/** Per clause, the scores of tf 1..TABLE_TFS for each of the 256 norms are tabulated (no division per posting). */
const TABLE_TFS = 4;
const TABLE_SIZE = TABLE_TFS * 256;
/** Bounds are inflated by this factor before comparing, against float64 rounding in their sums. */
const SLACK = 1 + 2 ** -36;

/** The index arrays the search reads. */
export interface PostingLists {
  docCount: number;
  postingOffsets: Float64Array;
  postingDocs: Uint32Array;
  postingTfs: Uint16Array | Uint32Array;
  norms: Uint8Array;
  /** Per term, the index of its first block in blockMaxima. */
  blockStarts: Float64Array;
  blockMaxima: Float32Array;
  inverseNorms: Float32Array;
}

const f = Math.fround;

/** Reusable per-query state for one index (one query at a time). */
export class MaxScoreSearch {
  private readonly lists: PostingLists;
  private n = 0;
  // Per clause (query term): postings [start, end), cursor, first block, shallow block cursor, weight.
  private start = new Float64Array(8);
  private end = new Float64Array(8);
  private pos = new Float64Array(8);
  private blockBase = new Float64Array(8);
  private numBlocks = new Float64Array(8);
  private shallow = new Float64Array(8);
  private weight = new Float64Array(8);
  private windowMax = new Float64Array(8);
  /** Clauses by ascending window bound; prefix[r] = sum of the bounds of order[0..r]. */
  private order = new Int32Array(8);
  private prefix = new Float64Array(8);
  /** Clause i's score of (tf, norm) for tf <= TABLE_TFS at [i * TABLE_SIZE + (tf - 1) * 256 + norm]. */
  private scoreTable = new Float64Array(8 * TABLE_SIZE);
  private readonly windowScores = new Float64Array(INNER_WINDOW);
  private readonly bits = new Uint32Array(INNER_WINDOW / 32);

  constructor(lists: PostingLists) {
    this.lists = lists;
  }

  /** Clears the clauses for a new query. */
  reset(): void {
    this.n = 0;
  }

  /** Adds the term with postings [start, end) and first block `blockBase`, weighted (boost · idf). */
  addClause(start: number, end: number, blockBase: number, weight: number): void {
    if (this.n === this.start.length) this.grow();
    const i = this.n++;
    this.start[i] = start;
    this.end[i] = end;
    this.pos[i] = start;
    this.blockBase[i] = blockBase;
    this.numBlocks[i] = Math.ceil((end - start) / B);
    this.shallow[i] = 0;
    this.weight[i] = weight;
    this.order[i] = i;
    const table = this.scoreTable;
    const inverseNorms = this.lists.inverseNorms;
    for (let tf = 1; tf <= TABLE_TFS; tf++) {
      const row = i * TABLE_SIZE + (tf - 1) * 256;
      for (let norm = 0; norm < 256; norm++) {
        table[row + norm] = termScore(weight, tf, inverseNorms[norm] as number);
      }
    }
  }

  /** Clause i's score of a posting (the same float32 value as termScore, from the table when it can). */
  private score(i: number, tf: number, norm: number): number {
    return tf <= TABLE_TFS
      ? (this.scoreTable[i * TABLE_SIZE + (tf - 1) * 256 + norm] as number)
      : termScore(this.weight[i] as number, tf, this.lists.inverseNorms[norm] as number);
  }

  private grow(): void {
    const size = this.start.length * 2;
    const widen = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.start = widen(this.start);
    this.end = widen(this.end);
    this.pos = widen(this.pos);
    this.blockBase = widen(this.blockBase);
    this.numBlocks = widen(this.numBlocks);
    this.shallow = widen(this.shallow);
    this.weight = widen(this.weight);
    this.windowMax = widen(this.windowMax);
    this.prefix = widen(this.prefix);
    const order = new Int32Array(size);
    order.set(this.order);
    this.order = order;
    const table = new Float64Array(size * TABLE_SIZE);
    table.set(this.scoreTable);
    this.scoreTable = table;
  }

  /** Last doc id of block j of clause i. */
  private lastDoc(i: number, j: number): number {
    const s = this.start[i] as number;
    return this.lists.postingDocs[Math.min(s + (j + 1) * B, this.end[i] as number) - 1] as number;
  }

  /** Moves clause i's shallow block cursor to the first block that may hold a doc >= target; -1 if none. */
  private shallowAdvance(i: number, target: number): number {
    let j = this.shallow[i] as number;
    const nb = this.numBlocks[i] as number;
    while (j < nb && this.lastDoc(i, j) < target) j++;
    this.shallow[i] = j;
    return j < nb ? j : -1;
  }

  /** Moves clause i's cursor to its first posting with doc >= target (or to its end). */
  private advance(i: number, target: number): void {
    const docs = this.lists.postingDocs;
    let p = this.pos[i] as number;
    const e = this.end[i] as number;
    if (p >= e || (docs[p] as number) >= target) return;
    const s = this.start[i] as number;
    let blockEnd = Math.min(s + (Math.floor((p - s) / B) + 1) * B, e);
    while (blockEnd < e && (docs[blockEnd - 1] as number) < target) blockEnd = Math.min(blockEnd + B, e);
    if ((docs[blockEnd - 1] as number) < target) {
      this.pos[i] = e;
      return;
    }
    p = Math.max(p, blockEnd - 1 - ((blockEnd - 1 - s) % B));
    let hi = blockEnd - 1;
    while (p < hi) {
      const mid = (p + hi) >>> 1;
      if ((docs[mid] as number) < target) p = mid + 1;
      else hi = mid;
    }
    this.pos[i] = p;
  }

  /** The end (exclusive) of the first block at or after windowMin among clauses order[from..n). */
  private nextBlockEnd(from: number, windowMin: number): number {
    let upTo = Number.POSITIVE_INFINITY;
    for (let r = from; r < this.n; r++) {
      const i = this.order[r] as number;
      const j = this.shallowAdvance(i, windowMin);
      if (j >= 0) upTo = Math.min(upTo, this.lastDoc(i, j) + 1);
    }
    return upTo;
  }

  /** Clause i's best possible score over docs [windowMin, upTo). */
  private boundIn(i: number, windowMin: number, upTo: number): number {
    const j0 = this.shallowAdvance(i, windowMin);
    if (j0 < 0) return 0;
    const docs = this.lists.postingDocs;
    const maxima = this.lists.blockMaxima;
    const s = this.start[i] as number;
    const base = this.blockBase[i] as number;
    const nb = this.numBlocks[i] as number;
    let max = 0;
    for (let j = j0; j < nb && (docs[s + j * B] as number) < upTo; j++) {
      const m = maxima[base + j] as number;
      if (m > max) max = m;
    }
    return max === 0 ? 0 : termScore(this.weight[i] as number, max, 1);
  }

  /** Runs the query over the added clauses, offering every possibly-competitive passage to `top`. */
  run(top: TopKHeap): void {
    const n = this.n;
    if (n === 0) return;
    const { order, windowMax, prefix } = this;
    const docCount = this.lists.docCount;
    let firstEssential = 0;
    let windowMin = 0;
    while (windowMin < docCount) {
      // The window ends at the first block boundary of an essential clause, at least INNER_WINDOW on.
      // (When those are exhausted, the other clauses' blocks decide; when all are, the query is done.)
      let upTo = this.nextBlockEnd(Math.min(firstEssential, n - 1), windowMin);
      if (upTo === Number.POSITIVE_INFINITY) upTo = this.nextBlockEnd(0, windowMin);
      if (upTo === Number.POSITIVE_INFINITY) break;
      upTo = Math.min(docCount, Math.max(upTo, windowMin + INNER_WINDOW));

      for (let i = 0; i < n; i++) windowMax[i] = this.boundIn(i, windowMin, upTo);
      // Insertion sort of the clauses by bound (a handful of clauses).
      for (let r = 1; r < n; r++) {
        const i = order[r] as number;
        const m = windowMax[i] as number;
        let q = r - 1;
        while (q >= 0 && (windowMax[order[q] as number] as number) > m) {
          order[q + 1] = order[q] as number;
          q--;
        }
        order[q + 1] = i;
      }
      firstEssential = 0;
      if (top.full) {
        const min = top.minScore;
        let sum = 0;
        for (let r = 0; r < n; r++) {
          const next = sum + (windowMax[order[r] as number] as number);
          if (f(next * SLACK) > min) break;
          sum = next;
          prefix[r] = sum;
          firstEssential = r + 1;
        }
      }
      if (firstEssential < n) this.scoreWindow(top, windowMin, upTo, firstEssential);
      windowMin = upTo;
    }
  }

  /** Scores docs [windowMin, upTo) that match an essential clause (order[firstEssential..n)). */
  private scoreWindow(top: TopKHeap, windowMin: number, upTo: number, firstEssential: number): void {
    const n = this.n;
    const { order, pos, end } = this;
    const { postingDocs: docs, postingTfs: tfs, norms } = this.lists;
    if (firstEssential === n - 1) {
      // One essential clause: walk its postings in doc order.
      const i = order[firstEssential] as number;
      this.advance(i, windowMin);
      const e = end[i] as number;
      let p = pos[i] as number;
      for (; p < e; p++) {
        const doc = docs[p] as number;
        if (doc >= upTo) break;
        this.collect(top, doc, this.score(i, tfs[p] as number, norms[doc] as number), firstEssential);
      }
      pos[i] = p;
      return;
    }
    const { windowScores, bits } = this;
    let innerMin = windowMin;
    while (innerMin < upTo) {
      let next = upTo;
      for (let r = firstEssential; r < n; r++) {
        const i = order[r] as number;
        this.advance(i, innerMin);
        const p = pos[i] as number;
        if (p < (end[i] as number)) next = Math.min(next, docs[p] as number);
      }
      if (next >= upTo) return;
      innerMin = next;
      const innerMax = Math.min(innerMin + INNER_WINDOW, upTo);
      for (let r = firstEssential; r < n; r++) {
        const i = order[r] as number;
        const e = end[i] as number;
        let p = pos[i] as number;
        for (; p < e; p++) {
          const doc = docs[p] as number;
          if (doc >= innerMax) break;
          const local = doc - innerMin;
          bits[local >>> 5] = (bits[local >>> 5] as number) | (1 << (local & 31));
          windowScores[local] =
            (windowScores[local] as number) + this.score(i, tfs[p] as number, norms[doc] as number);
        }
        pos[i] = p;
      }
      const words = (innerMax - innerMin + 31) >>> 5;
      for (let wi = 0; wi < words; wi++) {
        let word = bits[wi] as number;
        if (word === 0) continue;
        bits[wi] = 0;
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          word &= word - 1;
          const local = (wi << 5) | bit;
          const score = windowScores[local] as number;
          windowScores[local] = 0;
          this.collect(top, innerMin + local, score, firstEssential);
        }
      }
      innerMin = innerMax;
    }
  }

  /** Adds the non-essential clauses' scores to a candidate while it can still compete, then offers it. */
  private collect(top: TopKHeap, doc: number, essentialScore: number, firstEssential: number): void {
    let score = essentialScore;
    if (firstEssential > 0) {
      const { order, prefix, pos, end } = this;
      const { postingDocs: docs, postingTfs: tfs, norms } = this.lists;
      const min = top.minScore;
      for (let r = firstEssential - 1; r >= 0; r--) {
        if (f((score + (prefix[r] as number)) * SLACK) <= min) return;
        const i = order[r] as number;
        this.advance(i, doc);
        const p = pos[i] as number;
        if (p < (end[i] as number) && docs[p] === doc) {
          score += this.score(i, tfs[p] as number, norms[doc] as number);
        }
      }
    }
    top.offer(doc, f(score));
  }
}
