// The local retriever: opens (or builds, then saves) the BM25 index of a corpus file and answers
// queries from it, reading passage text back from the corpus file.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { logger as defaultLogger, type Logger } from "@rlfactory/toolkit";
import { type Bm25Params, DEFAULT_BM25 } from "./bm25.ts";
import { CorpusFormatError, PassageReader } from "./corpus-reader.ts";
import { analyze } from "./english-analyzer.ts";
import type { BuiltIndexStats } from "./index-builder.ts";
import { buildAndSaveIndex, defaultIndexDir, type IndexOpening, loadIndex } from "./index-store.ts";
import { InvertedIndex } from "./inverted-index.ts";
import type { RetrievedPassage, Retriever } from "./retriever.ts";
import { SearchPool } from "./search-pool.ts";

export interface Bm25RetrieverOptions {
  corpus: string;
  /** Where the index is saved and looked for; default: defaultIndexDir(corpus). */
  indexDir?: string;
  bm25?: Partial<Bm25Params>;
  /** Postings per build segment (index-builder.ts); bounds the build's memory. */
  segmentPostings?: number;
  /**
   * Worker threads that answer queries, sharing one copy of the index (search-pool.ts); 0 (the
   * default): queries are scored on the event loop.
   */
  workers?: number;
  /**
   * Map the index files read-only (default true; mapped-file.ts) rather than read them into memory:
   * false (`--no-mmap`) reads them as before.
   */
  mmap?: boolean;
  logger?: Logger;
}

export interface OpenedBm25Retriever {
  retriever: Bm25Retriever;
  /** true when the index was built now, false when a saved one was reused. */
  built: boolean;
  indexDir: string;
  /** true when the postings are served from read-only mappings of the index files, false when read. */
  mapped: boolean;
}

/** A batch yields to the event loop after this much scoring, so one big batch cannot stall the server. */
const YIELD_EVERY_MS = 20;

export class Bm25Retriever implements Retriever {
  readonly index: InvertedIndex;
  private readonly passages: PassageReader;
  /** Set when worker threads answer the queries. */
  readonly pool: SearchPool | undefined;

  constructor(index: InvertedIndex, passages: PassageReader, pool?: SearchPool) {
    this.index = index;
    this.passages = passages;
    this.pool = pool;
  }

  async retrieve(
    queries: readonly string[],
    topk: number,
    signal?: AbortSignal,
  ): Promise<RetrievedPassage[][]> {
    const pool = this.pool;
    if (pool) {
      // Every query of the batch is a task of its own: they spread over the worker threads.
      return Promise.all(
        queries.map(async (query) => {
          const hits = await pool.search(query, topk, signal);
          return Promise.all(
            hits.map(async ({ doc, score }) => ({ ...(await this.passages.read(doc)), score })),
          );
        }),
      );
    }
    const results: RetrievedPassage[][] = [];
    let slice = performance.now();
    for (const query of queries) {
      signal?.throwIfAborted();
      const hits = this.index.search(analyze(query), topk);
      results.push(
        await Promise.all(
          hits.map(async ({ doc, score }) => ({ ...(await this.passages.read(doc)), score })),
        ),
      );
      if (performance.now() - slice > YIELD_EVERY_MS) {
        await yieldToEventLoop();
        slice = performance.now();
      }
    }
    return results;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.passages.close();
  }
}

export async function openBm25Retriever(opts: Bm25RetrieverOptions): Promise<OpenedBm25Retriever> {
  const log = (opts.logger ?? defaultLogger).child({ component: "search-index" });
  const params: Bm25Params = { ...DEFAULT_BM25, ...opts.bm25 };
  const indexDir = opts.indexDir ?? defaultIndexDir(opts.corpus);
  const started = performance.now();
  const workers = opts.workers ?? 0;
  const shared = workers > 0;
  const mmap = opts.mmap !== false;
  const loaded = await loadIndex(indexDir, opts.corpus, { shared, mmap });
  if (loaded.status === "loaded") {
    log.info(
      {
        corpus: opts.corpus,
        indexDir,
        passages: loaded.data.docCount,
        mapped: isMapped(loaded.opening),
        ms: Math.round(performance.now() - started),
      },
      "search index loaded",
    );
    logUnmapped(log, loaded.opening);
    const retriever = await retrieverFor(opts.corpus, loaded.data, params, workers, loaded.opening);
    if (!retriever.index.savedMaximaUsed) {
      log.info(
        { saved: loaded.data.blockMaximaParams, k1: params.k1, b: params.b },
        "search index block maxima recomputed for these BM25 parameters",
      );
    }
    return { retriever, built: false, indexDir, mapped: isMapped(loaded.opening) };
  }
  log.info({ corpus: opts.corpus, indexDir, reason: loaded.reason }, "building search index");
  const { mtimeMs } = await stat(opts.corpus); // before reading: a later edit then shows as a change
  const source = { path: resolve(opts.corpus), mtimeMs };
  let servedFrom = indexDir;
  let scratchDir: string | undefined;
  let stats: BuiltIndexStats;
  try {
    stats = await buildAndSaveIndex(indexDir, source, params, opts.segmentPostings);
  } catch (err) {
    if (err instanceof CorpusFormatError) throw err;
    log.warn(
      { indexDir, err: (err as Error).message },
      "could not save the search index; it will be rebuilt next start",
    );
    scratchDir = await mkdtemp(join(tmpdir(), "rlf-search-index-"));
    servedFrom = join(scratchDir, "index");
    stats = await buildAndSaveIndex(servedFrom, source, params, opts.segmentPostings);
  }
  try {
    // A scratch index is deleted below, so it is read: a restarted worker thread could not map it again.
    const built = await loadIndex(servedFrom, opts.corpus, {
      shared,
      mmap: mmap && scratchDir === undefined,
    });
    if (built.status !== "loaded") throw new Error(`the index just built is unusable: ${built.reason}`);
    log.info(
      {
        corpus: opts.corpus,
        indexDir,
        passages: stats.docCount,
        terms: stats.numTerms,
        postings: stats.numPostings,
        segments: stats.segments,
        mapped: isMapped(built.opening),
        ms: Math.round(performance.now() - started),
      },
      "search index built",
    );
    logUnmapped(log, built.opening);
    return {
      retriever: await retrieverFor(opts.corpus, built.data, params, workers, built.opening),
      built: true,
      indexDir,
      mapped: isMapped(built.opening),
    };
  } finally {
    if (scratchDir) await rm(scratchDir, { recursive: true, force: true });
  }
}

async function retrieverFor(
  corpus: string,
  data: InvertedIndex["data"],
  params: Bm25Params,
  workers: number,
  opening: IndexOpening,
): Promise<Bm25Retriever> {
  const passages = new PassageReader(corpus, data.docOffsets);
  const index = new InvertedIndex(data, params);
  if (workers <= 0) return new Bm25Retriever(index, passages);
  const pool = new SearchPool(data, params, workers, opening);
  try {
    await pool.warmUp();
  } catch (err) {
    await pool.close();
    await passages.close();
    throw err;
  }
  return new Bm25Retriever(index, passages, pool);
}

function isMapped(opening: IndexOpening): boolean {
  return opening.mapped.some(({ name }) => name === "postingDocs");
}

/** Says which index files were read into memory although mapping was asked for, and why. */
function logUnmapped(log: Logger, opening: IndexOpening): void {
  if (opening.read.length === 0) return;
  const reasons = [...new Set(opening.read.map(({ reason }) => reason))];
  log.warn(
    { indexDir: opening.dir, files: opening.read.map(({ name }) => name), reasons },
    `search index files read into memory, not mapped: ${reasons.join("; ")}`,
  );
}
