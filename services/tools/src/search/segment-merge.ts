// Merges the segments of an out-of-core build (index-segment.ts) into the index files: a k-way merge
// of their sorted dictionaries; each term's postings are its segments' postings in segment order
// (disjoint, ascending doc-id ranges), streamed through fixed buffers; the block maxima are computed on
// the way. Memory: the segments' dictionaries and offsets, the norms, and the buffers.
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { POSTING_BLOCK_SIZE } from "./block-maxima.ts";
import type { Bm25Params } from "./bm25.ts";
import { inverseNormTable } from "./bm25.ts";
import { SEGMENT_FILES, type SegmentFiles } from "./index-segment.ts";

const BUFFER_ELEMENTS = 1 << 18;

type Typed = Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;

/** Appends typed values to a file through a fixed buffer. */
class BufferedWriter<T extends Typed> {
  private readonly fd: number;
  private readonly buffer: T;
  private n = 0;
  written = 0;

  constructor(path: string, buffer: T) {
    this.fd = openSync(path, "w");
    this.buffer = buffer;
  }

  push(value: number): void {
    if (this.n === this.buffer.length) this.flush();
    this.buffer[this.n++] = value;
    this.written++;
  }

  /** Appends `source[start, start + count)`. */
  copy(source: Uint8Array | Uint32Array, start: number, count: number): void {
    const buffer = this.buffer;
    this.written += count;
    if (count <= 64) {
      for (let i = start; i < start + count; i++) {
        if (this.n === buffer.length) this.flush();
        buffer[this.n++] = source[i] as number;
      }
      return;
    }
    const end = start + count;
    while (start < end) {
      if (this.n === buffer.length) this.flush();
      const k = Math.min(end - start, buffer.length - this.n);
      buffer.set(source.subarray(start, start + k), this.n);
      this.n += k;
      start += k;
    }
  }

  private flush(): void {
    if (this.n === 0) return;
    const b = this.buffer;
    writeSync(this.fd, new Uint8Array(b.buffer, b.byteOffset, this.n * b.BYTES_PER_ELEMENT));
    this.n = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Reads a file of Uint32 values front to back through a fixed buffer. */
class SequentialReader {
  private readonly fd: number;
  /** The values read; the next one is buffer[at]. */
  readonly buffer = new Uint32Array(BUFFER_ELEMENTS);
  at = 0;
  private n = 0;

  constructor(path: string) {
    this.fd = openSync(path, "r");
  }

  /** How many values can be taken now without reading (> 0: reads the file when none are left). */
  available(): number {
    if (this.at === this.n) {
      const bytes = readSync(this.fd, new Uint8Array(this.buffer.buffer));
      if (bytes === 0 || bytes % 4 !== 0) throw new Error("segment file truncated");
      this.n = bytes / 4;
      this.at = 0;
    }
    return this.n - this.at;
  }

  /** Moves past `count` values (count <= available()). */
  skip(count: number): void {
    this.at += count;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function readFloat64s(path: string): Float64Array {
  const bytes = readFileSync(path); // may be a slice of a shared pool: copy out its own bytes
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

interface SegmentCursor {
  terms: string[];
  offsets: Float64Array;
  term: number;
  docs: SequentialReader;
  tfs: SequentialReader;
}

export interface MergeInput {
  segments: readonly SegmentFiles[];
  norms: Uint8Array;
  avgdl: number;
  params: Bm25Params;
  /** Whether some tf exceeds 65,535 (then tfs are written as Uint32). */
  wideTfs: boolean;
}

export interface MergeOutput {
  numTerms: number;
  numPostings: number;
  numBlocks: number;
}

/** Writes the dictionary, postings and block-maxima files (names from `files`) into `dir`. */
export function mergeSegments(
  input: MergeInput,
  dir: string,
  files: {
    termBytes: string;
    termOffsets: string;
    postingOffsets: string;
    postingDocs: string;
    postingTfs: string;
    blockMaxima: string;
  },
): MergeOutput {
  const cursors: SegmentCursor[] = input.segments.map((s) => ({
    terms: s.numTerms === 0 ? [] : readFileSync(join(s.dir, SEGMENT_FILES.terms), "utf8").split("\n"),
    offsets: readFloat64s(join(s.dir, SEGMENT_FILES.offsets)),
    term: 0,
    docs: new SequentialReader(join(s.dir, SEGMENT_FILES.docs)),
    tfs: new SequentialReader(join(s.dir, SEGMENT_FILES.tfs)),
  }));
  const inverseNorms = inverseNormTable(input.params, input.avgdl);
  const { norms } = input;
  const encoder = new TextEncoder();
  const termBytes = new BufferedWriter(join(dir, files.termBytes), new Uint8Array(BUFFER_ELEMENTS));
  const termOffsets = new BufferedWriter(join(dir, files.termOffsets), new Uint32Array(BUFFER_ELEMENTS));
  const postingOffsets = new BufferedWriter(
    join(dir, files.postingOffsets),
    new Float64Array(BUFFER_ELEMENTS),
  );
  const docsOut = new BufferedWriter(join(dir, files.postingDocs), new Uint32Array(BUFFER_ELEMENTS));
  const tfsOut = new BufferedWriter(
    join(dir, files.postingTfs),
    input.wideTfs ? new Uint32Array(BUFFER_ELEMENTS) : new Uint16Array(BUFFER_ELEMENTS),
  );
  const maxima = new BufferedWriter(join(dir, files.blockMaxima), new Float32Array(BUFFER_ELEMENTS));
  let numTerms = 0;
  let numPostings = 0;
  let termByteOffset = 0;
  termOffsets.push(0);
  postingOffsets.push(0);
  try {
    for (;;) {
      let term: string | undefined;
      for (const c of cursors) {
        const t = c.terms[c.term];
        if (t !== undefined && (term === undefined || t < term)) term = t;
      }
      if (term === undefined) break;
      let inBlock = 0;
      let blockMax = 0;
      for (const c of cursors) {
        if (c.terms[c.term] !== term) continue;
        const df = (c.offsets[c.term + 1] as number) - (c.offsets[c.term] as number);
        for (let left = df; left > 0; ) {
          const n = Math.min(left, c.docs.available(), c.tfs.available());
          const docs = c.docs.buffer;
          const tfs = c.tfs.buffer;
          const d0 = c.docs.at;
          const t0 = c.tfs.at;
          docsOut.copy(docs, d0, n);
          tfsOut.copy(tfs, t0, n);
          for (let i = 0; i < n; i++) {
            const x = Math.fround(
              (tfs[t0 + i] as number) * (inverseNorms[norms[docs[d0 + i] as number] as number] as number),
            );
            if (x > blockMax) blockMax = x;
            if (++inBlock === POSTING_BLOCK_SIZE) {
              maxima.push(blockMax);
              inBlock = 0;
              blockMax = 0;
            }
          }
          c.docs.skip(n);
          c.tfs.skip(n);
          numPostings += n;
          left -= n;
        }
        c.term++;
      }
      if (inBlock > 0) maxima.push(blockMax);
      const bytes = encoder.encode(term);
      termBytes.copy(bytes, 0, bytes.length);
      termByteOffset += bytes.length;
      termOffsets.push(termByteOffset);
      postingOffsets.push(numPostings);
      numTerms++;
    }
    return { numTerms, numPostings, numBlocks: maxima.written };
  } finally {
    for (const w of [termBytes, termOffsets, postingOffsets, docsOut, tfsOut, maxima]) w.close();
    for (const c of cursors) {
      c.docs.close();
      c.tfs.close();
    }
  }
}
