// The k best (score, doc) pairs of a query in preallocated typed arrays: a min-heap whose root is the
// worst kept hit (lowest score; of equal scores the later passage, since Lucene's ties go to the
// lower doc id). Offering a candidate allocates nothing.

export interface ScoredDoc {
  doc: number;
  score: number;
}

export class TopKHeap {
  private docs: Int32Array;
  private scores: Float64Array;
  private k = 0;
  size = 0;

  constructor(capacity = 100) {
    this.docs = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  /** Empties the heap for a query asking for `k` hits (grows the arrays when k exceeds them). */
  reset(k: number): void {
    if (k > this.docs.length) {
      this.docs = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
    this.k = k;
    this.size = 0;
  }

  get full(): boolean {
    return this.size >= this.k;
  }

  /** The score a new hit must beat once the heap is full (a later passage must beat it strictly). */
  get minScore(): number {
    return this.scores[0] as number;
  }

  /** Keeps (doc, score) if it is among the k best so far. */
  offer(doc: number, score: number): void {
    const { docs, scores } = this;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const ps = scores[parent] as number;
        if (!(score < ps || (score === ps && doc > (docs[parent] as number)))) break;
        docs[i] = docs[parent] as number;
        scores[i] = ps;
        i = parent;
      }
      docs[i] = doc;
      scores[i] = score;
      return;
    }
    if (this.k === 0) return;
    const rootScore = scores[0] as number;
    if (score < rootScore || (score === rootScore && doc > (docs[0] as number))) return;
    this.siftDown(doc, score);
  }

  private siftDown(doc: number, score: number): void {
    const { docs, scores } = this;
    const n = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const ls = scores[l] as number;
        const rs = scores[r] as number;
        if (rs < ls || (rs === ls && (docs[r] as number) > (docs[l] as number))) c = r;
      }
      const cs = scores[c] as number;
      if (!(cs < score || (cs === score && (docs[c] as number) > doc))) break;
      docs[i] = docs[c] as number;
      scores[i] = cs;
      i = c;
    }
    docs[i] = doc;
    scores[i] = score;
  }

  /** The kept hits, best first. */
  sorted(): ScoredDoc[] {
    const hits: ScoredDoc[] = [];
    for (let i = 0; i < this.size; i++)
      hits.push({ doc: this.docs[i] as number, score: this.scores[i] as number });
    return hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }
}
