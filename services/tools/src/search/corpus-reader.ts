// Reads a Search-R1 JSONL corpus: streaming its records with their byte offsets (for indexing), and
// fetching single passages back by offset (for answering), so passage text never sits in memory.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { z } from "zod";
import type { Passage } from "./passage.ts";

const CorpusRecord = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  contents: z.string(),
});

export class CorpusFormatError extends Error {
  override readonly name = "CorpusFormatError";
}

/** Parses one corpus line; `where` names it in errors. */
export function parseCorpusLine(line: string, where: string): Passage {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    throw new CorpusFormatError(`${where}: not JSON (${(err as Error).message})`);
  }
  const record = CorpusRecord.safeParse(json);
  if (!record.success)
    throw new CorpusFormatError(`${where}: expected {"id", "contents"} (${record.error.message})`);
  return record.data;
}

export interface CorpusScan {
  /** SHA-256 of the whole file, hex. */
  sha256: string;
  size: number;
}

/**
 * Calls `onRecord(passage, byteOffset)` for each non-blank line of `path`, in order, and returns
 * the file's size and SHA-256 (computed on the same pass).
 */
export async function scanCorpus(
  path: string,
  onRecord: (passage: Passage, offset: number) => void,
): Promise<CorpusScan> {
  const hash = createHash("sha256");
  let pending: Buffer = Buffer.alloc(0);
  let pendingOffset = 0; // file offset of pending[0]
  let lineNo = 0;
  const emit = (line: Buffer, offset: number) => {
    lineNo++;
    const text = line.toString("utf8").trim();
    if (text !== "") onRecord(parseCorpusLine(text, `${path}:${lineNo}`), offset);
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 4 << 20 })) {
    const buf = chunk as Buffer;
    hash.update(buf);
    const data = pending.length === 0 ? buf : Buffer.concat([pending, buf]);
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      emit(data.subarray(start, nl), pendingOffset + start);
      start = nl + 1;
    }
    pending = data.subarray(start);
    pendingOffset += start;
  }
  if (pending.length > 0) emit(pending, pendingOffset);
  return { sha256: hash.digest("hex"), size: pendingOffset + pending.length };
}

/** Random access to the passages of a corpus file by line byte ranges. */
export class PassageReader {
  private readonly path: string;
  private readonly offsets: Float64Array;
  private handle: Promise<FileHandle> | undefined;

  /** `offsets[i]` is where passage i's line starts; `offsets[count]` is the file size. */
  constructor(path: string, offsets: Float64Array) {
    this.path = path;
    this.offsets = offsets;
  }

  async read(doc: number): Promise<Passage> {
    const start = this.offsets[doc];
    const end = this.offsets[doc + 1];
    if (start === undefined || end === undefined) throw new RangeError(`no passage ${doc}`);
    this.handle ??= open(this.path, "r");
    const handle = await this.handle;
    const buf = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buf, 0, buf.length, start);
    return parseCorpusLine(buf.toString("utf8", 0, bytesRead).trim(), `${this.path} (passage ${doc})`);
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle).close();
  }
}
