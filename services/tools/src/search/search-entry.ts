// How `rlf tool search` is listed and started: its flags, and a factory that loads the server only when
// one is created.
import { z } from "zod";
import type { ToolOptionValues, ToolServerEntry } from "../tool-server-entry.ts";
import { DEFAULT_BM25 } from "./bm25.ts";

const EntryValues = z
  .object({
    corpus: z.string().min(1).optional(),
    "index-dir": z.string().min(1).optional(),
    k1: z.coerce.number().min(0).optional(),
    b: z.coerce.number().min(0).max(1).optional(),
    "retriever-url": z.url().optional(),
    workers: z.coerce.number().int().min(0).max(256).optional(),
    "no-mmap": z.boolean().optional(),
  })
  .refine(
    (v) => v["retriever-url"] === undefined || (v.corpus === undefined && v["index-dir"] === undefined),
    {
      message: "--retriever-url (proxy mode) indexes nothing: drop --corpus / --index-dir",
    },
  );

export const searchServerEntry: ToolServerEntry = {
  summary: "BM25 passage search over a Search-R1 corpus (or proxy to a /retrieve server), + POST /retrieve",
  options: {
    corpus: { type: "string" },
    "index-dir": { type: "string" },
    k1: { type: "string" },
    b: { type: "string" },
    "retriever-url": { type: "string" },
    workers: { type: "string" },
    "no-mmap": { type: "boolean" },
  },
  usage: `[--corpus CORPUS.jsonl] [--index-dir DIR] [--k1 ${DEFAULT_BM25.k1}] [--b ${DEFAULT_BM25.b}] [--workers N] [--no-mmap] | [--retriever-url URL]`,
  create: (values: ToolOptionValues) => {
    const parsed = EntryValues.safeParse(values);
    if (!parsed.success) throw new Error(`search: ${z.prettifyError(parsed.error)}`);
    const v = parsed.data;
    return import("./search-server.ts").then((m) =>
      m.createSearchServer({
        ...(v.corpus !== undefined ? { corpus: v.corpus } : {}),
        ...(v["index-dir"] !== undefined ? { indexDir: v["index-dir"] } : {}),
        ...(v["retriever-url"] !== undefined ? { retrieverUrl: v["retriever-url"] } : {}),
        ...(v.workers !== undefined ? { workers: v.workers } : {}),
        ...(v["no-mmap"] === true ? { mmap: false } : {}),
        bm25: { ...(v.k1 !== undefined ? { k1: v.k1 } : {}), ...(v.b !== undefined ? { b: v.b } : {}) },
      }),
    );
  },
};
