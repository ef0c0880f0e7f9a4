// One segment of an out-of-core index build: the (term, tf) pairs of a contiguous run of passages,
// inverted (sorted terms, ascending global doc ids) and written to four files, so that the build holds
// only one segment's postings in memory. segment-merge.ts merges the segments into the index.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GrowableArray } from "./growable-array.ts";

/** A written segment: its directory and sizes. */
export interface SegmentFiles {
  dir: string;
  numTerms: number;
  numPostings: number;
}

export const SEGMENT_FILES = {
  /** The sorted terms, "\n"-separated (analyzed terms never contain whitespace). */
  terms: "terms.txt",
  /** Per term its postings' start; [numTerms] = numPostings. */
  offsets: "offsets.f64",
  docs: "docs.u32",
  tfs: "tfs.u32",
} as const;

export class SegmentInverter {
  private vocab = new Map<string, number>();
  private docFreq = new GrowableArray<Uint32Array>(Uint32Array);
  private forwardTerms = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
  private forwardTfs = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
  private forwardDocs = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);

  /** Counts the segments written so far: a term id is valid only in its generation. */
  generation = 0;

  get numPostings(): number {
    return this.forwardTerms.length;
  }

  /** The segment's id of `term`, assigned on first sight (ids 0, 1, 2, ... in order of first sight). */
  termId(term: string): number {
    let id = this.vocab.get(term);
    if (id === undefined) {
      id = this.vocab.size;
      this.vocab.set(term, id);
      this.docFreq.push(0);
    }
    return id;
  }

  /** Adds that term `id` occurs `tf` times in passage `doc` (passages in ascending doc order). */
  addPosting(doc: number, id: number, tf: number): void {
    this.docFreq.add(id, 1);
    this.forwardTerms.push(id);
    this.forwardTfs.push(tf);
    this.forwardDocs.push(doc);
  }

  /** Inverts what was added into `dir` (which must exist) and starts an empty segment. */
  write(dir: string): SegmentFiles {
    const sortedTerms = [...this.vocab.keys()].sort();
    const dfs = this.docFreq.view();
    const offsets = new Float64Array(sortedTerms.length + 1);
    const rank = new Uint32Array(this.vocab.size);
    for (let r = 0; r < sortedTerms.length; r++) {
      const id = this.vocab.get(sortedTerms[r] as string) as number;
      rank[id] = r;
      offsets[r + 1] = (offsets[r] as number) + (dfs[id] as number);
    }
    const numPostings = this.forwardTerms.length;
    const docs = new Uint32Array(numPostings);
    const tfs = new Uint32Array(numPostings);
    const cursor = offsets.slice(0, sortedTerms.length);
    const fTerms = this.forwardTerms.view();
    const fTfs = this.forwardTfs.view();
    const fDocs = this.forwardDocs.view();
    for (let p = 0; p < numPostings; p++) {
      const r = rank[fTerms[p] as number] as number;
      const at = cursor[r] as number;
      docs[at] = fDocs[p] as number;
      tfs[at] = fTfs[p] as number;
      cursor[r] = at + 1;
    }
    writeFileSync(join(dir, SEGMENT_FILES.terms), sortedTerms.join("\n"));
    writeFileSync(join(dir, SEGMENT_FILES.offsets), new Uint8Array(offsets.buffer));
    writeFileSync(join(dir, SEGMENT_FILES.docs), new Uint8Array(docs.buffer));
    writeFileSync(join(dir, SEGMENT_FILES.tfs), new Uint8Array(tfs.buffer));
    const written = { dir, numTerms: sortedTerms.length, numPostings };
    this.vocab = new Map();
    this.docFreq = new GrowableArray<Uint32Array>(Uint32Array);
    this.forwardTerms = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
    this.forwardTfs = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
    this.forwardDocs = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
    this.generation++;
    return written;
  }
}
