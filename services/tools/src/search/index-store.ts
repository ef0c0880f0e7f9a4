// Saves an index (built out of core by index-builder.ts) as a directory of raw little-endian typed
// arrays plus meta.json, and reopens it when the corpus is unchanged: same size and mtime, or (when only the mtime moved) the
// same SHA-256. Writes go to a temporary directory renamed into place, so readers never see half.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { POSTING_BLOCK_SIZE, termBlockStarts } from "./block-maxima.ts";
import type { Bm25Params } from "./bm25.ts";
import { type BuiltIndexStats, buildIndexFiles } from "./index-builder.ts";
import { INDEX_FILES } from "./index-files.ts";
import type { InvertedIndexData } from "./inverted-index.ts";
import { mapFile, mmapAddon } from "./mapped-file.ts";

/**
 * Bump when the on-disk layout, the analysis or the block size changes: an index of another format
 * is not read but rebuilt (the log names both formats). v2 added the per-block impact maxima.
 */
export const INDEX_FORMAT = `rlf-bm25-v2 lucene-english-porter block-max-${POSTING_BLOCK_SIZE}`;

const Meta = z.object({
  format: z.string(),
  corpus: z.object({ path: z.string(), size: z.number(), mtimeMs: z.number(), sha256: z.string() }),
  docCount: z.number().int(),
  fieldDocCount: z.number().int(),
  sumTotalTermFreq: z.number().int(),
  numTerms: z.number().int(),
  numPostings: z.number().int(),
  tfBytes: z.union([z.literal(2), z.literal(4)]),
  numBlocks: z.number().int(),
  blockMaximaParams: z.object({ k1: z.number(), b: z.number() }),
});
type Meta = z.infer<typeof Meta>;

export interface CorpusFingerprint {
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** Where an index of `corpusPath` lives by default: a per-corpus folder under the user's cache. */
export function defaultIndexDir(corpusPath: string): string {
  const abs = resolve(corpusPath);
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
  const key = createHash("sha256").update(abs).digest("hex").slice(0, 16);
  return join(cache, "rlfactory", "search-index", `${basename(abs)}-${key}`);
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 4 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const FILES = INDEX_FILES;

/**
 * Builds the index of `corpus.path` (out of core, index-builder.ts) into a temporary directory beside
 * `dir`, writes meta.json, and renames it into place; `corpus.mtimeMs` is the corpus's mtime as read
 * before the build, so a later edit shows as a change.
 */
export async function buildAndSaveIndex(
  dir: string,
  corpus: { path: string; mtimeMs: number },
  params: Bm25Params,
  segmentPostings?: number,
): Promise<BuiltIndexStats> {
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(tmp, { recursive: true });
  try {
    const built = await buildIndexFiles(corpus.path, params, tmp, segmentPostings);
    const { stats } = built;
    const meta: Meta = {
      format: INDEX_FORMAT,
      corpus: {
        path: corpus.path,
        size: built.corpus.size,
        mtimeMs: corpus.mtimeMs,
        sha256: built.corpus.sha256,
      },
      docCount: stats.docCount,
      fieldDocCount: stats.fieldDocCount,
      sumTotalTermFreq: stats.sumTotalTermFreq,
      numTerms: stats.numTerms,
      numPostings: stats.numPostings,
      tfBytes: stats.tfBytes,
      numBlocks: stats.numBlocks,
      blockMaximaParams: { k1: params.k1, b: params.b },
    };
    await writeFile(join(tmp, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return stats;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

export type IndexArrayName = keyof typeof INDEX_FILES;

/** How an opened index's arrays are held: which files are mapped, and which were read although mapping was asked. */
export interface IndexOpening {
  dir: string;
  /** Arrays over read-only mappings of their files (mapped-file.ts): one page-cache copy per host. */
  mapped: { name: IndexArrayName; bytes: number }[];
  /** Arrays read into memory although mapping was asked for, and why (the addon did not load). */
  read: { name: IndexArrayName; reason: string }[];
  tfBytes: 2 | 4;
}

export type LoadOutcome =
  | { status: "loaded"; data: InvertedIndexData; corpus: CorpusFingerprint; opening: IndexOpening }
  | { status: "stale" | "missing"; reason: string };

export interface LoadOptions {
  /** Arrays that are read (not mapped) go into SharedArrayBuffers, which worker threads read without a copy. */
  shared?: boolean;
  /**
   * Map the files read-only instead of reading them (default true), files of any size: where the addon
   * did not load, the files are read instead (IndexOpening.read says why).
   */
  mmap?: boolean;
}

/**
 * Opens the index in `dir` if it was built from `corpusPath` as it is now: its files mapped (default) or
 * read into memory (`mmap: false`; `shared`: into SharedArrayBuffers for worker threads, search-pool.ts).
 */
export async function loadIndex(
  dir: string,
  corpusPath: string,
  opts: LoadOptions = {},
): Promise<LoadOutcome> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(dir, "meta.json"), "utf8"));
  } catch {
    return { status: "missing", reason: `no readable index in ${dir}` };
  }
  const format = z.object({ format: z.string() }).safeParse(json);
  if (format.success && format.data.format !== INDEX_FORMAT) {
    return {
      status: "stale",
      reason: `index format "${format.data.format}" is not this version's "${INDEX_FORMAT}"`,
    };
  }
  const parsed = Meta.safeParse(json);
  if (!parsed.success) return { status: "stale", reason: `unreadable index metadata in ${dir}` };
  const meta = parsed.data;
  const st = await stat(corpusPath);
  if (st.size !== meta.corpus.size) return { status: "stale", reason: "corpus size changed" };
  let corpus: CorpusFingerprint = { ...meta.corpus, path: resolve(corpusPath) };
  if (st.mtimeMs !== meta.corpus.mtimeMs) {
    const sha256 = await sha256File(corpusPath);
    if (sha256 !== meta.corpus.sha256) return { status: "stale", reason: "corpus contents changed" };
    corpus = { ...corpus, mtimeMs: st.mtimeMs };
    await writeFile(join(dir, "meta.json"), `${JSON.stringify({ ...meta, corpus }, null, 2)}\n`).catch(
      () => {},
    );
  }
  try {
    const { data, opening } = await readData(dir, meta, opts.shared === true, opts.mmap !== false);
    return { status: "loaded", data, corpus, opening };
  } catch (err) {
    return { status: "stale", reason: `unreadable index (${(err as Error).message})` };
  }
}

/** Each array's expected size in bytes (undefined: any), from the metadata. */
function expectedBytes(name: IndexArrayName, meta: Meta): number | undefined {
  switch (name) {
    case "termBytes":
      return undefined;
    case "termOffsets":
      return (meta.numTerms + 1) * 4;
    case "postingOffsets":
      return (meta.numTerms + 1) * 8;
    case "postingDocs":
      return meta.numPostings * 4;
    case "postingTfs":
      return meta.numPostings * meta.tfBytes;
    case "norms":
      return meta.docCount;
    case "docOffsets":
      return (meta.docCount + 1) * 8;
    case "blockMaxima":
      return meta.numBlocks * 4;
  }
}

type IndexArrays = Pick<InvertedIndexData, IndexArrayName>;

/** The typed array of `name` over a whole buffer (mapped or read). */
function viewOf(name: IndexArrayName, buffer: ArrayBufferLike, tfBytes: 2 | 4): IndexArrays[IndexArrayName] {
  switch (name) {
    case "termBytes":
    case "norms":
      return new Uint8Array(buffer);
    case "termOffsets":
    case "postingDocs":
      return new Uint32Array(buffer);
    case "postingOffsets":
    case "docOffsets":
      return new Float64Array(buffer);
    case "postingTfs":
      return tfBytes === 4 ? new Uint32Array(buffer) : new Uint16Array(buffer);
    case "blockMaxima":
      return new Float32Array(buffer);
  }
}

const ARRAY_NAMES = Object.keys(FILES) as IndexArrayName[];

async function readData(
  dir: string,
  meta: Meta,
  shared: boolean,
  mmap: boolean,
): Promise<{ data: InvertedIndexData; opening: IndexOpening }> {
  const opening: IndexOpening = { dir, mapped: [], read: [], tfBytes: meta.tfBytes };
  const addon = mmap ? mmapAddon() : undefined;
  const arrays: Partial<Record<IndexArrayName, IndexArrays[IndexArrayName]>> = {};
  for (const name of ARRAY_NAMES) {
    const path = join(dir, FILES[name]);
    const bytes = (await stat(path)).size;
    const expected = expectedBytes(name, meta);
    if (expected !== undefined && bytes !== expected)
      throw new Error(`${path}: ${bytes} bytes, expected ${expected}`);
    let buffer: ArrayBufferLike | undefined;
    if (addon !== undefined) {
      if (!("mmap" in addon)) opening.read.push({ name, reason: addon.reason });
      else if (bytes > 0) {
        buffer = mapFile(addon.mmap, path, bytes);
        opening.mapped.push({ name, bytes });
      }
    }
    arrays[name] = viewOf(name, buffer ?? (await readFileInto(path, shared, bytes)), meta.tfBytes);
  }
  const data = {
    docCount: meta.docCount,
    fieldDocCount: meta.fieldDocCount,
    sumTotalTermFreq: meta.sumTotalTermFreq,
    ...(arrays as IndexArrays),
    blockMaximaParams: meta.blockMaximaParams,
  };
  const numBlocks = termBlockStarts(data.postingOffsets)[meta.numTerms];
  if (numBlocks !== meta.numBlocks) throw new Error(`${meta.numBlocks} blocks, expected ${numBlocks}`);
  return { data, opening };
}

/**
 * In a worker thread: maps the files `opening` mapped in the serving thread, and returns their arrays
 * (the same pages of the page cache, no copy).
 */
export function mapOpenedArrays(opening: IndexOpening): Partial<IndexArrays> {
  const addon = mmapAddon();
  if (!("mmap" in addon)) throw new Error(addon.reason);
  const arrays: Partial<Record<IndexArrayName, IndexArrays[IndexArrayName]>> = {};
  for (const { name, bytes } of opening.mapped) {
    arrays[name] = viewOf(name, mapFile(addon.mmap, join(opening.dir, FILES[name]), bytes), opening.tfBytes);
  }
  return arrays as Partial<IndexArrays>;
}

/** Reads a whole file into a fresh (aligned) buffer, shared or not, in chunks (files may exceed 2 GiB). */
async function readFileInto(
  path: string,
  shared: boolean,
  expectedBytes?: number,
): Promise<ArrayBuffer | SharedArrayBuffer> {
  const handle = await open(path, "r");
  try {
    const size = (await handle.stat()).size;
    if (expectedBytes !== undefined && size !== expectedBytes) {
      throw new Error(`${path}: ${size} bytes, expected ${expectedBytes}`);
    }
    const buffer = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    const bytes = new Uint8Array(buffer);
    const CHUNK = 1 << 30;
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(bytes, at, Math.min(CHUNK, size - at), at);
      if (bytesRead === 0) throw new Error(`${path}: truncated`);
      at += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}
