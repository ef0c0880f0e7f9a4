// Proxy mode: forwards queries to a remote retriever speaking Search-R1's /retrieve API (e.g. the
// dense e5 + FAISS server on a GPU host), so `search` holds no index itself.
import { ToolError } from "@rlfactory/toolkit";
import { z } from "zod";
import type { RetrievedPassage, Retriever } from "./retriever.ts";

const RemoteResponse = z.object({
  result: z.array(
    z.array(
      z.object({
        document: z
          .object({
            id: z.union([z.string(), z.number()]).transform(String).default(""),
            contents: z.string(),
          })
          .loose(),
        score: z.number(),
      }),
    ),
  ),
});

export interface RemoteRetrieverOptions {
  /** The remote's retrieve endpoint, e.g. http://gpu-host:8000/retrieve (a bare origin gets /retrieve). */
  url: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
}

export class RemoteRetriever implements Retriever {
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(opts: RemoteRetrieverOptions) {
    const url = new URL(opts.url);
    if (url.pathname === "/" || url.pathname === "") url.pathname = "/retrieve";
    this.url = url.href;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  async retrieve(
    queries: readonly string[],
    topk: number,
    signal?: AbortSignal,
  ): Promise<RetrievedPassage[][]> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queries, topk, return_scores: true }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      signal?.throwIfAborted();
      if (timeout.aborted)
        throw new ToolError(`Search backend ${this.url} timed out after ${this.timeoutMs} ms`);
      throw new ToolError(`Search backend ${this.url} is unreachable (${causeOf(err)})`);
    }
    if (!response.ok) {
      throw new ToolError(`Search backend ${this.url} answered HTTP ${response.status}`);
    }
    const parsed = RemoteResponse.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success || parsed.data.result.length !== queries.length) {
      throw new ToolError(`Search backend ${this.url} sent a malformed /retrieve response`);
    }
    return parsed.data.result.map((hits) =>
      hits.map(({ document, score }) => ({ id: document.id, contents: document.contents, score })),
    );
  }

  async close(): Promise<void> {}
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
