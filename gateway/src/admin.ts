// The admin HTTP surface (fastify): health, readiness, Prometheus metrics, and a JSON way to list and
// call tools for callers without gRPC — through the same invoker, so the same policy stack.
import { type Context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { httpCallerGone, readOversizedBody } from "@rlfactory/kit";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { z } from "zod";
import type { ApiKeyAuth } from "./auth.ts";
import type { CallLog } from "./call-log.ts";
import { toWireResult } from "./call-tools-batch.ts";
import type { Catalog } from "./catalog.ts";
import { type Episodes, MAX_EPISODE_ID_LENGTH } from "./episodes.ts";
import { httpStatusFor, isGatewayError, shortMessage, truncate } from "./errors.ts";
import { toWireTool } from "./grpc-server.ts";
import type { CallOutcome, Invoker } from "./invoker.ts";
import { toJsonContent } from "./json-content.ts";
import type { McpEndpoint } from "./mcp-endpoint.ts";
import type { UpstreamPolicies } from "./policies.ts";
import type { Upstream } from "./upstream.ts";

const tracer = trace.getTracer("rlfactory-gateway");

export interface AdminDeps {
  invoker: Invoker;
  catalog: Catalog;
  episodes: Episodes;
  upstreams: readonly Upstream[];
  policies: ReadonlyMap<string, UpstreamPolicies>;
  metrics: Registry;
  auth: ApiKeyAuth;
  /** Bodies larger than this are answered 413 (the gateway passes its gRPC message limit). */
  bodyLimitBytes: number;
  /** Where a 5xx's cause (error and stack) goes: the caller sees only "internal gateway error". */
  log?: Logger;
  /** The northbound MCP endpoint served at `/mcp` (mcp-endpoint.ts). */
  mcp?: McpEndpoint;
  /** The per-trajectory call log read by `GET /v1/calls` (call-log.ts); absent: the route answers none. */
  callLog?: CallLog;
}

const CallBody = z
  .object({
    arguments: z.record(z.string(), z.unknown()).optional(),
    deadline_ms: z.number().int().min(0).optional(),
    trajectory_id: z.string().optional(),
    call_id: z.string().optional(),
    cache: z.enum(["default", "bypass"]).optional(),
    episode_id: z.string().optional(),
  })
  .strict();

const StartEpisodeBody = z
  .object({
    server: z.string().min(1),
    config: z.record(z.string(), z.unknown()).optional(),
    ttl_ms: z.number().int().min(0).max(4_294_967_295).optional(),
  })
  .strict();

const ForkEpisodeBody = z.object({ count: z.number().int().min(1) }).strict();

const CallsQuery = z.object({ trajectory: z.string().min(1).max(4_096) }).strict();

export function buildAdminApp(deps: AdminDeps): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimitBytes,
    // fastify's default (100 characters) answers 414 for ordinary episode ids (they carry the server
    // name and the server's handle): room for the longest id the gateway accepts, plus ":fork".
    routerOptions: { maxParamLength: MAX_EPISODE_ID_LENGTH + ":fork".length },
  });
  // JSON only: fastify also parses text/plain by default, which would reach the routes as a string.
  app.removeContentTypeParser("text/plain");

  // Every error, the framework's own included, answers the documented `{error: {code, message}}`.
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(errorBody("NOT_FOUND", `no route ${req.method} ${truncate(req.url.split("?")[0] ?? "")}`)),
  );
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const statusCode = typeof err.statusCode === "number" && err.statusCode >= 400 ? err.statusCode : 500;
    if (statusCode >= 500) {
      deps.log?.error({ err, method: req.method, url: truncate(req.url) }, "internal gateway error");
      return reply.code(500).send(errorBody("INTERNAL", "internal gateway error"));
    }
    return reply.code(statusCode).send(errorBody(httpErrorCode(statusCode), shortMessage(err.message)));
  });

  // `/mcp` is served by the MCP SDK from the raw request, before fastify parses a body.
  const mcp = deps.mcp;
  if (mcp) {
    app.addHook("onRequest", async (req, reply) => {
      if (req.url.split("?")[0] !== "/mcp") return;
      reply.hijack();
      await mcp.handle(req.raw, reply.raw).catch((err: unknown) => {
        deps.log?.error({ err }, "mcp (northbound) request failed");
        if (!reply.raw.headersSent)
          reply.raw.writeHead(500, { "content-type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              error: { code: -32_603, message: "Internal error" },
              id: null,
            }),
          );
        else reply.raw.end();
      });
    });
  }

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (req, reply) => {
    const upstreams = deps.upstreams.map((u) => ({
      name: u.name,
      state: u.state,
      breaker: deps.policies.get(u.name)?.breakerState ?? "closed",
      in_flight: deps.policies.get(u.name)?.inFlight ?? 0,
      queued: deps.policies.get(u.name)?.queued ?? 0,
      tools: deps.catalog.list(u.name).length,
      unavailable_tools: deps.catalog
        .list(u.name)
        .flatMap((e) => (e.unavailable === undefined ? [] : [{ name: e.name, reason: e.unavailable }])),
      detail: u.detail,
    }));
    // Ready when every upstream is connected: a trainer should not start rollouts against a half stack.
    // Connected servers that list tools they cannot run here (the code tools without bubblewrap) leave
    // the gateway ready, as "degraded": those calls answer UNAVAILABLE and no restart would change that.
    const ready = upstreams.every((u) => u.state === "ready");
    const degraded = upstreams.some((u) => u.unavailable_tools.length > 0);
    const status = !ready ? "not_ready" : degraded ? "degraded" : "ready";
    // Probes need no key; with auth on, a caller without a valid one learns only each upstream's
    // connection state — not its errors (addresses, paths), load or tools.
    const full = deps.auth.check(req.headers.authorization);
    return reply
      .code(ready ? 200 : 503)
      .send({ status, upstreams: full ? upstreams : upstreams.map(({ name, state }) => ({ name, state })) });
  });

  app.get("/metrics", async (_req, reply) => {
    reply.header("content-type", deps.metrics.contentType);
    return deps.metrics.metrics();
  });

  app.register(async (api) => {
    api.addHook("onRequest", async (req, reply) => {
      if (!deps.auth.check(req.headers.authorization)) {
        return reply
          .code(401)
          .send(errorBody("UNAUTHENTICATED", "missing or invalid API key (authorization: Bearer KEY)"));
      }
    });

    // A body declared over the limit is answered 413 after it has been read (readOversizedBody says why),
    // once the caller is known.
    app.addHook("onRequest", async (req, reply) => {
      const oversized = await readOversizedBody(req.raw, deps.bodyLimitBytes);
      if (oversized === undefined) return;
      if (!oversized.drained) reply.header("connection", "close");
      return reply
        .code(413)
        .send(
          errorBody(
            "BODY_TOO_LARGE",
            `the request body has ${oversized.declared} bytes, more than grpc.max_message_bytes (${deps.bodyLimitBytes})`,
          ),
        );
    });

    api.get("/v1/tools", async (req) => {
      const server = (req.query as { server?: string }).server;
      return { tools: deps.catalog.list(server || undefined).map(toWireTool) };
    });

    // `POST /v1/tools/{name}:call` — tool names never contain ':', so the verb is after the last one.
    api.post("/v1/tools/:target", async (req, reply) => {
      const target = (req.params as { target: string }).target;
      const colon = target.lastIndexOf(":");
      if (colon < 0 || target.slice(colon + 1) !== "call") {
        return reply.code(404).send(errorBody("NOT_FOUND", "use POST /v1/tools/{name}:call"));
      }
      const parsed = CallBody.safeParse(req.body ?? {});
      if (!parsed.success) {
        return reply.code(400).send(errorBody("INVALID_ARGUMENTS", z.prettifyError(parsed.error)));
      }
      const body = parsed.data;
      const name = target.slice(0, colon);
      // The client hanging up before the answer cancels the call.
      const signal = httpCallerGone(reply.raw);
      const parent: Context = propagation.extract(ROOT_CONTEXT, req.headers);
      const outcome = await tracer.startActiveSpan(
        "POST /v1/tools/{name}:call",
        {
          kind: SpanKind.SERVER,
          attributes: { "http.request.method": "POST", "http.route": "/v1/tools/{name}:call" },
        },
        parent,
        async (span) => {
          try {
            return await deps.invoker.call(
              {
                name,
                // Parsed already: the invoker checks its depth before anything recursive touches it.
                argumentsJson: "",
                argumentsValue: body.arguments ?? {},
                deadlineMs: body.deadline_ms ?? 0,
                trajectoryId: body.trajectory_id ?? "",
                bypassCache: body.cache === "bypass",
                callId: body.call_id ?? "",
                episodeId: body.episode_id ?? "",
                signal,
              },
              trace.setSpan(parent, span),
              span,
            );
          } finally {
            span.end();
          }
        },
      );
      return reply.code(outcome.error ? httpStatusFor(outcome.error.code) : 200).send(toJsonResult(outcome));
    });

    // Episodes (docs/environments.md): the same operations as the gRPC StartEpisode/Fork/Snapshot/End.
    const episodeRoute = async <T>(
      req: { headers: Record<string, string | string[] | undefined> },
      reply: FastifyReply,
      route: string,
      op: (ctx: Context) => Promise<T>,
    ) => {
      const parent: Context = propagation.extract(ROOT_CONTEXT, req.headers);
      try {
        return reply.send(await op(parent));
      } catch (err) {
        if (!isGatewayError(err) || err.code === "INTERNAL") throw err;
        deps.log?.debug({ route, code: err.code }, "episode operation failed");
        return reply.code(httpStatusFor(err.code)).send(errorBody(err.code, err.message));
      }
    };

    // Read-only: the calls served for one trajectory (`rlf rollout agent` joins them into its records).
    api.get("/v1/calls", async (req, reply) => {
      const parsed = CallsQuery.safeParse(req.query ?? {});
      if (!parsed.success)
        return reply.code(400).send(errorBody("INVALID_ARGUMENTS", z.prettifyError(parsed.error)));
      const { trajectory } = parsed.data;
      return deps.callLog?.list(trajectory) ?? { trajectory, calls: [], dropped: 0 };
    });

    // Read-only: every environment server's live episodes (the console's Episodes view).
    api.get("/v1/episodes", async () => ({ servers: deps.episodes.list() }));

    api.post("/v1/episodes", async (req, reply) => {
      const parsed = StartEpisodeBody.safeParse(req.body ?? {});
      if (!parsed.success)
        return reply.code(400).send(errorBody("INVALID_ARGUMENTS", z.prettifyError(parsed.error)));
      const { server, config, ttl_ms } = parsed.data;
      return episodeRoute(req, reply, "POST /v1/episodes", async (ctx) => ({
        // the parsed body as is: its depth is checked before anything recursive (JSON.stringify) sees it
        episode_id: await deps.episodes.start(server, { value: config ?? {} }, ttl_ms ?? 0, ctx),
      }));
    });

    // `POST /v1/episodes/{id}:fork` — ids never contain ':'.
    api.post("/v1/episodes/:target", async (req, reply) => {
      const target = (req.params as { target: string }).target;
      const colon = target.lastIndexOf(":");
      if (colon < 0 || target.slice(colon + 1) !== "fork")
        return reply.code(404).send(errorBody("NOT_FOUND", "use POST /v1/episodes/{id}:fork"));
      const parsed = ForkEpisodeBody.safeParse(req.body ?? {});
      if (!parsed.success)
        return reply.code(400).send(errorBody("INVALID_ARGUMENTS", z.prettifyError(parsed.error)));
      const id = target.slice(0, colon);
      return episodeRoute(req, reply, "POST /v1/episodes/{id}:fork", async (ctx) => ({
        episode_ids: await deps.episodes.fork(id, parsed.data.count, ctx),
      }));
    });

    api.get("/v1/episodes/:id/state", async (req, reply) => {
      const id = (req.params as { id: string }).id;
      return episodeRoute(req, reply, "GET /v1/episodes/{id}/state", async (ctx) => ({
        state: JSON.parse(await deps.episodes.snapshot(id, ctx)) as unknown,
      }));
    });

    api.delete("/v1/episodes/:id", async (req, reply) => {
      const id = (req.params as { id: string }).id;
      return episodeRoute(req, reply, "DELETE /v1/episodes/{id}", async (ctx) => ({
        state: JSON.parse(await deps.episodes.end(id, ctx)) as unknown,
      }));
    });
  });

  return app;
}

function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** The `error.code` for a request the framework refused before any route ran. */
function httpErrorCode(statusCode: number): string {
  switch (statusCode) {
    case 404:
      return "NOT_FOUND";
    case 413:
      return "BODY_TOO_LARGE";
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE";
    default:
      return "INVALID_REQUEST";
  }
}

/** The HTTP JSON form of a result: the gRPC fields, with MCP-shaped content blocks (binary as base64). */
export function toJsonResult(o: CallOutcome) {
  const { content, structured_content_json, ...rest } = toWireResult(o);
  return {
    ...rest,
    content: (content ?? []).map(toJsonContent),
    structured_content: structured_content_json ? JSON.parse(structured_content_json) : undefined,
  };
}
