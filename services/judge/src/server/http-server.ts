// The HTTP JSON surface (fastify):
//   POST /v1/judge  body: a request of judge-types.ts, e.g.
//                   {"mode":"pointwise","task":"…","response":"…","reference":"…","rubric":"…"}
//                   → 200 { score, scores?, winner?, ...metadata }: the result with its metadata keys
//                     flattened to the top level (mode, judge_model, template, latency_ms, tokens,
//                     calls, samples, cached, sample_scores?, explanation?)
//                   → non-2xx (HTTP_STATUS of the code) { error: { code, message } }
//                   → 413 { error: { code: "INVALID_REQUEST", … } } for a body over limits.max_body_bytes
//   GET  /healthz   { status: "ok" } (rule graders run in worker threads: it answers while they work)
//   GET  /metrics   Prometheus text
// A `traceparent` header continues the caller's trace; a client that hangs up cancels its judgment.

import { httpCallerGone, readOversizedBody } from "@rlfactory/kit";
import { extractTraceContext } from "@rlfactory/telemetry";
import Fastify, { type FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import { HTTP_STATUS, type JudgeOutcome } from "../judge-types.ts";
import type { Judgments } from "./judgments.ts";

export interface JudgeHttpDeps {
  judgments: Judgments;
  registry: Registry;
  bodyLimitBytes: number;
}

export interface JudgeHttpServer {
  app: FastifyInstance;
  /** Listens; resolves with the base URL (http://host:port). */
  listen(opts: { host: string; port: number }): Promise<string>;
  /** Stops accepting, lets responses in flight finish, then drops idle connections. */
  close(): Promise<void>;
}

function bodyTooLarge(max: number, declared?: number) {
  return {
    code: "INVALID_REQUEST",
    message:
      (declared === undefined ? "the request body has" : `the request body has ${declared} bytes,`) +
      ` more than ` +
      `limits.max_body_bytes (${max}): send fewer or shorter texts, or ask the operator to raise the limit`,
    limit: { setting: "limits.max_body_bytes", max, ...(declared === undefined ? {} : { actual: declared }) },
  };
}

export function buildJudgeHttpServer(deps: JudgeHttpDeps): JudgeHttpServer {
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimitBytes });

  // Fastify's own rejections (bad JSON, wrong content type, body too large) answer the same shape.
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const statusCode = err.statusCode ?? 500;
    // a body without a length (chunked) that turned out too large
    if (statusCode === 413) return reply.code(413).send({ error: bodyTooLarge(deps.bodyLimitBytes) });
    const code = statusCode < 500 ? "INVALID_REQUEST" : "INTERNAL";
    return reply.code(statusCode).send({ error: { code, message: err.message } });
  });

  // A body declared over the limit is answered 413 after it has been read (readOversizedBody says why).
  app.addHook("onRequest", async (req, reply) => {
    const oversized = await readOversizedBody(req.raw, deps.bodyLimitBytes);
    if (oversized === undefined) return;
    if (!oversized.drained) reply.header("connection", "close");
    return reply.code(413).send({ error: bodyTooLarge(deps.bodyLimitBytes, oversized.declared) });
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/metrics", async (_req, reply) =>
    reply.type(deps.registry.contentType).send(await deps.registry.metrics()),
  );

  app.post("/v1/judge", async (req, reply) => {
    const outcome = await deps.judgments.run(req.body, {
      transport: "http",
      spanName: "POST /v1/judge",
      parent: extractTraceContext(req.headers),
      signal: httpCallerGone(reply.raw),
    });
    return outcome.ok
      ? reply.send(outcomeToJson(outcome))
      : reply.code(HTTP_STATUS[outcome.error.code]).send(outcomeToJson(outcome));
  });

  return {
    app,
    listen: (opts) => app.listen(opts),
    close: async () => {
      const closed = app.close();
      app.server.closeIdleConnections();
      await closed;
    },
  };
}

/** The HTTP JSON body of an outcome: the score with its metadata flattened, or `{ error }`. */
export function outcomeToJson(outcome: JudgeOutcome): Record<string, unknown> {
  if (!outcome.ok) return { error: outcome.error };
  const { metadata, ...result } = outcome.result;
  return { ...result, ...metadata };
}
