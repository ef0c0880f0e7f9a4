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
import { buildAndSaveIndex, defaultIndexDir, loadIndex } from "./index-store.ts";
import { InvertedIndex } from "./inverted-index.ts";
import type { RetrievedPassage, Retriever } from "./retriever.ts";

export interface Bm25RetrieverOptions {
  corpus: string;
  /** Where the index is saved and looked for; default: defaultIndexDir(corpus). */
  indexDir?: string;
  bm25?: Partial<Bm25Params>;
  /** Postings per build segment (index-builder.ts); bounds the build's memory. */
  segmentPostings?: number;
  logger?: Logger;
}

export interface OpenedBm25Retriever {
  retriever: Bm25Retriever;
  /** true when the index was built now, false when a saved one was reused. */
  built: boolean;
  indexDir: string;
}

/** A batch yields to the event loop after this much scoring, so one big batch cannot stall the server. */
const YIELD_EVERY_MS = 20;

export class Bm25Retriever implements Retriever {
  readonly index: InvertedIndex;
  private readonly passages: PassageReader;

  constructor(index: InvertedIndex, passages: PassageReader) {
    this.index = index;
    this.passages = passages;
  }

  async retrieve(
    queries: readonly string[],
    topk: number,
    signal?: AbortSignal,
  ): Promise<RetrievedPassage[][]> {
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

  close(): Promise<void> {
    return this.passages.close();
  }
}

export async function openBm25Retriever(opts: Bm25RetrieverOptions): Promise<OpenedBm25Retriever> {
  const log = (opts.logger ?? defaultLogger).child({ component: "search-index" });
  const params: Bm25Params = { ...DEFAULT_BM25, ...opts.bm25 };
  const indexDir = opts.indexDir ?? defaultIndexDir(opts.corpus);
  const started = performance.now();
  const loaded = await loadIndex(indexDir, opts.corpus);
  if (loaded.status === "loaded") {
    log.info(
      {
        corpus: opts.corpus,
        indexDir,
        passages: loaded.data.docCount,
        ms: Math.round(performance.now() - started),
      },
      "search index loaded",
    );
    const retriever = retrieverFor(opts.corpus, loaded.data, params);
    if (!retriever.index.savedMaximaUsed) {
      log.info(
        { saved: loaded.data.blockMaximaParams, k1: params.k1, b: params.b },
        "search index block maxima recomputed for these BM25 parameters",
      );
    }
    return { retriever, built: false, indexDir };
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
    const built = await loadIndex(servedFrom, opts.corpus);
    if (built.status !== "loaded") throw new Error(`the index just built is unusable: ${built.reason}`);
    log.info(
      {
        corpus: opts.corpus,
        indexDir,
        passages: stats.docCount,
        terms: stats.numTerms,
        postings: stats.numPostings,
        segments: stats.segments,
        ms: Math.round(performance.now() - started),
      },
      "search index built",
    );
    return { retriever: retrieverFor(opts.corpus, built.data, params), built: true, indexDir };
  } finally {
    if (scratchDir) await rm(scratchDir, { recursive: true, force: true });
  }
}

function retrieverFor(corpus: string, data: InvertedIndex["data"], params: Bm25Params): Bm25Retriever {
  return new Bm25Retriever(new InvertedIndex(data, params), new PassageReader(corpus, data.docOffsets));
}
