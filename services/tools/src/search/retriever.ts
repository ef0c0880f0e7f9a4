// What the `search` tool and the /retrieve route query: a local BM25 index or a remote retriever.

export interface RetrievedPassage {
  id: string;
  contents: string;
  score: number;
}

export interface Retriever {
  /** The top `topk` passages for each query, best first. Throws ToolError on backend failure. */
  retrieve(queries: readonly string[], topk: number, signal?: AbortSignal): Promise<RetrievedPassage[][]>;
  close(): Promise<void>;
}
