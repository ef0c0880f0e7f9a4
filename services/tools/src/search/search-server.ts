// The `search` tool server: one tool, `search(query, topk)`, over a BM25 index of a Search-R1 corpus
// (or a remote retriever), plus Search-R1's POST /retrieve on the same HTTP port.
import { fileURLToPath } from "node:url";
import { createToolServer, defineTool, type Logger, type ToolServer } from "@rlfactory/toolkit";
import { z } from "zod";
import type { Bm25Params } from "./bm25.ts";
import { openBm25Retriever } from "./bm25-retriever.ts";
import { renderPassages, splitContents } from "./passage.ts";
import { RemoteRetriever } from "./remote-retriever.ts";
import { DEFAULT_TOPK, MAX_TOPK, retrieveRoute } from "./retrieve-route.ts";
import type { Retriever } from "./retriever.ts";

/** The bundled sample corpus (HotpotQA dev paragraphs, CC BY-SA 4.0; see data/search/SOURCE.md). */
export const SAMPLE_CORPUS = fileURLToPath(new URL("../../data/search/sample-corpus.jsonl", import.meta.url));

export interface SearchServerOptions {
  /** Search-R1 JSONL corpus; default: the bundled sample. Ignored with `retrieverUrl`. */
  corpus?: string;
  /** Where the BM25 index is saved/reused; default: a per-corpus folder under ~/.cache/rlfactory. */
  indexDir?: string;
  bm25?: Partial<Bm25Params>;
  /** Proxy mode: forward queries to this Search-R1 /retrieve endpoint instead of indexing. */
  retrieverUrl?: string;
  /** Proxy mode: per-request timeout (default 30 s). */
  retrieverTimeoutMs?: number;
  /** Worker threads answering queries over one shared copy of the index; 0 (default): the event loop. */
  workers?: number;
  /** Map the index files read-only (default true); false (`--no-mmap`): read them into memory. */
  mmap?: boolean;
  logger?: Logger;
}

export async function createSearchServer(opts: SearchServerOptions = {}): Promise<ToolServer> {
  const retriever: Retriever = opts.retrieverUrl
    ? new RemoteRetriever({
        url: opts.retrieverUrl,
        ...(opts.retrieverTimeoutMs !== undefined ? { timeoutMs: opts.retrieverTimeoutMs } : {}),
      })
    : (
        await openBm25Retriever({
          corpus: opts.corpus ?? SAMPLE_CORPUS,
          ...(opts.indexDir !== undefined ? { indexDir: opts.indexDir } : {}),
          ...(opts.bm25 !== undefined ? { bm25: opts.bm25 } : {}),
          ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
          ...(opts.mmap !== undefined ? { mmap: opts.mmap } : {}),
          ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
        })
      ).retriever;
  return createToolServer({
    name: "search",
    version: "0.1.0",
    tools: [searchTool(retriever)],
    routes: [retrieveRoute(retriever)],
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
  });
}

const SearchResult = z.object({ id: z.string(), title: z.string(), text: z.string(), score: z.number() });

export function searchTool(retriever: Retriever) {
  return defineTool({
    name: "search",
    title: "Search",
    description:
      "Searches a passage corpus (Wikipedia-style) for a query and returns the best-matching passages " +
      "with their titles. Use short keyword-rich queries; call again with a refined query if needed.",
    input: z.object({
      query: z.string().min(1).max(2000).describe("what to look for, e.g. Scott Derrickson nationality"),
      topk: z
        .number()
        .int()
        .min(1)
        .max(MAX_TOPK)
        .default(DEFAULT_TOPK)
        .describe("how many passages to return"),
    }),
    output: z.object({ results: z.array(SearchResult) }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: async ({ query, topk }, { signal }) => {
      const [hits = []] = await retriever.retrieve([query], topk, signal);
      return {
        results: hits.map(({ id, contents, score }) => ({ id, ...splitContents(contents), score })),
      };
    },
    render: ({ results }) => (results.length === 0 ? "No results." : renderPassages(results)),
  });
}
