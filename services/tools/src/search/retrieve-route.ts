// Search-R1's retrieval API on the tool server's HTTP port, so Search-R1/verl rollouts can point
// their `retriever.url` here: POST /retrieve {"queries": [...], "topk": n|null, "return_scores": bool}.
import { type HttpRoute, ToolError } from "@rlfactory/toolkit";
import { z } from "zod";
import type { Retriever } from "./retriever.ts";

export const DEFAULT_TOPK = 3;
export const MAX_TOPK = 100;
export const MAX_BATCH = 4096;

const RetrieveRequest = z.object({
  queries: z.array(z.string()).min(1).max(MAX_BATCH),
  topk: z.number().int().min(1).max(MAX_TOPK).nullish(),
  return_scores: z.boolean().default(false),
});

export function retrieveRoute(retriever: Retriever): HttpRoute {
  return {
    method: "POST",
    path: "/retrieve",
    handler: async (body, _req, signal) => {
      const request = RetrieveRequest.safeParse(body);
      if (!request.success) return { status: 400, body: { error: z.prettifyError(request.error) } };
      const { queries, topk, return_scores } = request.data;
      let results: Awaited<ReturnType<Retriever["retrieve"]>>;
      try {
        results = await retriever.retrieve(queries, topk ?? DEFAULT_TOPK, signal);
      } catch (err) {
        if (err instanceof ToolError) return { status: 502, body: { error: err.message } };
        throw err;
      }
      return {
        status: 200,
        body: {
          result: results.map((hits) =>
            hits.map(({ id, contents, score }) =>
              return_scores ? { document: { id, contents }, score } : { id, contents },
            ),
          ),
        },
      };
    },
  };
}
