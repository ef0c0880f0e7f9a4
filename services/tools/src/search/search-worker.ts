// The worker module of the search pool (search-pool.ts): each worker thread opens the index once — it
// maps the files the serving thread mapped (the same page-cache pages), and its warm-up task carries the
// other typed arrays over SharedArrayBuffers, so every thread reads the one copy — and then answers queries with the same code as the event loop's
// path (InvertedIndex.search: block-max MaxScore, exact scores).
import type { Bm25Params } from "./bm25.ts";
import { analyze } from "./english-analyzer.ts";
import { type IndexOpening, mapOpenedArrays } from "./index-store.ts";
import { InvertedIndex, type InvertedIndexData, type ScoredDoc } from "./inverted-index.ts";

export type SearchTask =
  | { open: { data: Partial<InvertedIndexData>; params: Bm25Params; opening?: IndexOpening } }
  | { query: string; topk: number };

export type SearchAnswer = { opened: number } | { hits: ScoredDoc[] };

let index: InvertedIndex | undefined;

export default function handle(task: SearchTask): SearchAnswer {
  if ("open" in task) {
    const { data, params, opening } = task.open;
    index ??= new InvertedIndex(
      { ...data, ...(opening ? mapOpenedArrays(opening) : {}) } as InvertedIndexData,
      params,
    );
    return { opened: index.numTerms };
  }
  if (index === undefined) throw new Error("search worker: no index opened");
  return { hits: index.search(analyze(task.query), task.topk) };
}
