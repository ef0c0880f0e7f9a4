// The `search` tool server: BM25 (Lucene/pyserini-exact) over a Search-R1 corpus, or a proxy to a
// remote Search-R1 retriever; MCP tool `search` plus POST /retrieve.

export { DEFAULT_BM25 } from "./bm25.ts";
export type { Bm25RetrieverOptions, OpenedBm25Retriever } from "./bm25-retriever.ts";
export { openBm25Retriever } from "./bm25-retriever.ts";
export { analyze } from "./english-analyzer.ts";
export { buildHotpotqaCorpus } from "./hotpotqa-corpus.ts";
export type { RetrievedPassage, Retriever } from "./retriever.ts";
export { searchServerEntry } from "./search-entry.ts";
export type { SearchServerOptions } from "./search-server.ts";
export { createSearchServer, SAMPLE_CORPUS } from "./search-server.ts";
