// The worker module of the search pool (search-pool.ts): each worker thread opens the index once — its
// warm-up task carries the index's typed arrays, over SharedArrayBuffers, so every thread reads the one
// copy the serving process loaded — and then answers queries with the same code as the event loop's
// path (InvertedIndex.search: block-max MaxScore, exact scores).
import type { Bm25Params } from "./bm25.ts";
import { analyze } from "./english-analyzer.ts";
import { InvertedIndex, type InvertedIndexData, type ScoredDoc } from "./inverted-index.ts";

export type SearchTask =
  | { open: { data: InvertedIndexData; params: Bm25Params } }
  | { query: string; topk: number };

export type SearchAnswer = { opened: number } | { hits: ScoredDoc[] };

let index: InvertedIndex | undefined;

export default function handle(task: SearchTask): SearchAnswer {
  if ("open" in task) {
    index ??= new InvertedIndex(task.open.data, task.open.params);
    return { opened: index.numTerms };
  }
  if (index === undefined) throw new Error("search worker: no index opened");
  return { hits: index.search(analyze(task.query), task.topk) };
}
