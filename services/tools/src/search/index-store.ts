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

export type LoadOutcome =
  | { status: "loaded"; data: InvertedIndexData; corpus: CorpusFingerprint }
  | { status: "stale" | "missing"; reason: string };

/**
 * Opens the index in `dir` if it was built from `corpusPath` as it is now. `shared`: its arrays are read
 * into SharedArrayBuffers, which worker threads read without a copy (search-pool.ts).
 */
export async function loadIndex(
  dir: string,
  corpusPath: string,
  opts: { shared?: boolean } = {},
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
    return { status: "loaded", data: await readData(dir, meta, opts.shared === true), corpus };
  } catch (err) {
    return { status: "stale", reason: `unreadable index (${(err as Error).message})` };
  }
}

async function readData(dir: string, meta: Meta, shared: boolean): Promise<InvertedIndexData> {
  const numTerms = meta.numTerms;
  const readArrayBuffer = (path: string, expectedBytes?: number) => readFileInto(path, shared, expectedBytes);
  const postingOffsets = new Float64Array(
    await readArrayBuffer(join(dir, FILES.postingOffsets), (numTerms + 1) * 8),
  );
  const numBlocks = termBlockStarts(postingOffsets)[numTerms];
  if (numBlocks !== meta.numBlocks) throw new Error(`${meta.numBlocks} blocks, expected ${numBlocks}`);
  return {
    docCount: meta.docCount,
    fieldDocCount: meta.fieldDocCount,
    sumTotalTermFreq: meta.sumTotalTermFreq,
    termBytes: new Uint8Array(await readArrayBuffer(join(dir, FILES.termBytes))),
    termOffsets: new Uint32Array(await readArrayBuffer(join(dir, FILES.termOffsets), (numTerms + 1) * 4)),
    postingOffsets,
    postingDocs: new Uint32Array(await readArrayBuffer(join(dir, FILES.postingDocs), meta.numPostings * 4)),
    postingTfs:
      meta.tfBytes === 4
        ? new Uint32Array(await readArrayBuffer(join(dir, FILES.postingTfs), meta.numPostings * 4))
        : new Uint16Array(await readArrayBuffer(join(dir, FILES.postingTfs), meta.numPostings * 2)),
    norms: new Uint8Array(await readArrayBuffer(join(dir, FILES.norms), meta.docCount)),
    docOffsets: new Float64Array(await readArrayBuffer(join(dir, FILES.docOffsets), (meta.docCount + 1) * 8)),
    blockMaxima: new Float32Array(await readArrayBuffer(join(dir, FILES.blockMaxima), meta.numBlocks * 4)),
    blockMaximaParams: meta.blockMaximaParams,
  };
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
