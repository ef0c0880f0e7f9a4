// Queries served by worker threads sharing one copy of the index: each thread of a kit WorkerPool maps
// the index files the serving thread mapped (index-store.ts: one page-cache copy for every thread and
// process of the host), and takes the arrays that were read (`--no-mmap`, where the addon did not
// load, or an empty file) over SharedArrayBuffers (search-worker.ts), never copying them. One query is one task; a batch's queries spread over the threads,
// and the pool's fair queue holds the rest. Hits and scores are the event loop path's, exactly
// (search-pool.test.ts compares them).
import { WorkerPool } from "@rlfactory/kit/worker-pool";
import { ToolError } from "@rlfactory/toolkit";
import type { Bm25Params } from "./bm25.ts";
import type { IndexOpening } from "./index-store.ts";
import type { InvertedIndexData, ScoredDoc } from "./inverted-index.ts";
import type { SearchAnswer, SearchTask } from "./search-worker.ts";

const WORKER_URL = new URL("./search-worker.ts", import.meta.url);

export class SearchPool {
  readonly workers: number;
  private readonly pool: WorkerPool<SearchTask, SearchAnswer>;

  constructor(data: InvertedIndexData, params: Bm25Params, workers: number, opening?: IndexOpening) {
    const sent: Record<string, unknown> = { ...data };
    for (const { name } of opening?.mapped ?? []) delete sent[name]; // each worker maps these itself
    for (const [name, value] of Object.entries(sent)) {
      if (ArrayBuffer.isView(value) && !(value.buffer instanceof SharedArrayBuffer) && value.byteLength > 0)
        throw new Error(
          `SearchPool: index array ${name} is neither mapped nor in shared memory (loadIndex with shared)`,
        );
    }
    const open = { data: sent as Partial<InvertedIndexData>, params, ...(opening ? { opening } : {}) };
    this.pool = new WorkerPool<SearchTask, SearchAnswer>({
      filename: WORKER_URL,
      workers,
      warmUpTask: { open },
    });
    this.workers = this.pool.workers;
  }

  /** Starts every worker and opens the index in each; resolves once they are ready. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  async search(query: string, topk: number, signal?: AbortSignal): Promise<ScoredDoc[]> {
    const outcome = await this.pool.run({ query, topk }, signal ? { signal } : {});
    if (outcome.status === "done" && "hits" in outcome.value) return outcome.value.hits;
    if (outcome.status === "cancelled") throw signal?.reason ?? new ToolError("search cancelled");
    const why = outcome.status === "failed" ? outcome.error.message : outcome.status;
    throw new ToolError(`search failed on a worker thread (${why})`);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
