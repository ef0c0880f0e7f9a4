// The console's HTTP server: a JSON API under /api (the gateway's admin API and the run directories,
// read on each request) and the built web app (web/dist) for every other GET, so each view's URL
// can be opened directly and shared.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiKeyAuth } from "@rlfactory/kit";
import Fastify, { type FastifyInstance } from "fastify";
import { z } from "zod";
import type { TraceTimeline } from "./api-types.ts";
import { BundleDirectories } from "./bundle-directories.ts";
import { episodesOverview } from "./episodes-overview.ts";
import { GatewayAdminClient, GatewayAdminError, GatewayAuthError } from "./gateway-admin-client.ts";
import { JaegerClient } from "./jaeger-client.ts";
import { RolloutServiceClient, RolloutServiceError } from "./rollout-service-client.ts";
import { RunDirectories } from "./run-directories.ts";
import { IMAGE_SHA256 } from "./run-images.ts";
import { runResponse, trajectoryResponse } from "./run-responses.ts";
import { toolCallTimeline } from "./tool-call-timeline.ts";
import { toolsOverview } from "./tools-overview.ts";
import { traceLink } from "./trajectory-detail.ts";

export const CONSOLE_PORT = 8090;
export const DEFAULT_GATEWAY_ADMIN = "http://127.0.0.1:8080";

/** Where `npm run build -w @rlfactory/console` (and npm install) writes the web app. */
export const ASSETS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../web/dist");

export interface ConsoleOptions {
  gatewayAdmin: string;
  /**
   * A key for the gateway's admin API when its auth is on (one of its `auth.api_keys`), sent as
   * `authorization: Bearer KEY` for the catalog, the playground's calls and the episodes.
   */
  gatewayApiKey?: string;
  /** Where that key comes from, for the message when the gateway refuses (`--gateway-api-key-env NAME`). */
  gatewayApiKeyHint?: string;
  runsDir: string;
  /** The rollout service's HTTP URL (`rlf rollout serve`): its runs in flight appear live. */
  rollout?: string;
  /**
   * API keys: with any, every /api request needs `authorization: Bearer KEY` (the app asks for the key
   * once and sends it). The app's files and GET /healthz need none: they hold no data.
   */
  apiKeys?: readonly string[];
  assetsDir?: string;
  /** Jaeger's base URL (its UI; the query API under /api): trace links and the Traces view's source. */
  jaeger?: string;
  /** A folder of environment bundles (or one bundle) for the Environments view. */
  bundlesDir?: string;
}

const CallBody = z
  .object({
    arguments: z.record(z.string(), z.unknown()).default({}),
    episode_id: z.string().min(1).optional(),
  })
  .strict();
const StartEpisodeBody = z
  .object({ server: z.string().min(1), config: z.record(z.string(), z.unknown()).default({}) })
  .strict();

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};

export function buildConsoleApp(opts: ConsoleOptions): FastifyInstance {
  const assets = opts.assetsDir ?? ASSETS_DIR;
  if (!existsSync(join(assets, "index.html"))) {
    throw new Error(
      `the console's web app is not built (${assets}): run npm run build -w @rlfactory/console`,
    );
  }
  const gateway = new GatewayAdminClient(opts.gatewayAdmin, {
    ...(opts.gatewayApiKey !== undefined && { apiKey: opts.gatewayApiKey }),
    ...(opts.gatewayApiKeyHint !== undefined && { keyHint: opts.gatewayApiKeyHint }),
  });
  const runs = new RunDirectories(opts.runsDir);
  const jaeger = opts.jaeger === undefined ? undefined : new JaegerClient(opts.jaeger);
  const bundles = new BundleDirectories(opts.bundlesDir);
  const rollout = opts.rollout === undefined ? undefined : new RolloutServiceClient(opts.rollout);
  // Episode ids carry the server and its handle: room for the gateway's longest (2,048 characters).
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: 4096 } });

  app.setErrorHandler((err, _req, reply) => {
    // Not 401: that would ask the page for the console's own key.
    if (err instanceof GatewayAuthError) {
      return reply.code(502).send({ error: { code: "GATEWAY_UNAUTHENTICATED", message: err.message } });
    }
    if (err instanceof GatewayAdminError) {
      return reply.code(502).send({ error: { code: "GATEWAY_UNAVAILABLE", message: err.message } });
    }
    if (err instanceof RolloutServiceError) {
      return reply.code(502).send({ error: { code: "ROLLOUT_UNAVAILABLE", message: err.message } });
    }
    return reply.code(500).send({ error: { code: "INTERNAL", message: (err as Error).message } });
  });

  const auth = new ApiKeyAuth(opts.apiKeys ?? []);
  app.addHook("onRequest", async (req, reply) => {
    if (!req.url.startsWith("/api/") || auth.check(req.headers.authorization)) return;
    return reply.code(401).send({
      error: {
        code: "UNAUTHENTICATED",
        message: "this console needs an API key (authorization: Bearer KEY)",
      },
    });
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/api/tools", async () => toolsOverview(gateway));

  app.get("/api/runs", async () => ({ runs: await runs.list() }));

  app.get("/api/runs/:run", async (req, reply) => {
    const { run } = req.params as { run: string };
    const trajectories = await runs.trajectories(run);
    const summary = await runs.summary(run);
    if (summary === undefined) return reply.code(404).send(notFound(`no run ${run}`));
    return runResponse(run, summary, trajectories);
  });

  app.get("/api/runs/:run/trajectories/:index", async (req, reply) => {
    const { run, index } = req.params as { run: string; index: string };
    const trajectories = await runs.trajectories(run);
    const i = Number(index);
    const t = Number.isInteger(i) && i >= 0 ? trajectories?.[i] : undefined;
    if (t === undefined) return reply.code(404).send(notFound(`no trajectory ${index} in run ${run}`));
    return trajectoryResponse(run, i, t, await runs.summary(run), trajectories ?? [], opts.jaeger);
  });

  // A tool-result image of the run, by its content hash (the record's `images[].sha256`).
  app.get("/api/runs/:run/images/:sha256", async (req, reply) => {
    const { run, sha256 } = req.params as { run: string; sha256: string };
    if (!IMAGE_SHA256.test(sha256)) {
      return reply
        .code(400)
        .send(invalid(`${JSON.stringify(sha256)} is not a SHA-256 (64 lowercase hex digits)`));
    }
    const image = await runs.image(run, sha256);
    if (image === undefined) return reply.code(404).send(notFound(`no image ${sha256} in run ${run}`));
    reply.header("content-type", image.contentType);
    reply.header("x-content-type-options", "nosniff");
    reply.header("cache-control", "private, max-age=31536000, immutable");
    return reply.send(image.bytes);
  });

  app.get("/api/runs/:run/trajectories/:index/trace", async (req, reply) => {
    const { run, index } = req.params as { run: string; index: string };
    const i = Number(index);
    const t = Number.isInteger(i) && i >= 0 ? (await runs.trajectories(run))?.[i] : undefined;
    if (t === undefined) return reply.code(404).send(notFound(`no trajectory ${index} in run ${run}`));
    const link = traceLink(t, run, i, opts.jaeger);
    return {
      ...(await toolCallTimeline(t, link.trace_id, jaeger)),
      trace_url: link.url,
    } satisfies TraceTimeline;
  });

  // The Tools playground: a call through the gateway's admin API in a trace of its own (the
  // traceparent is made here, so the trace's id is known before the call).
  app.post("/api/tools/:name/call", async (req, reply) => {
    const parsed = CallBody.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(invalid(z.prettifyError(parsed.error)));
    const traceId = randomBytes(16).toString("hex");
    const started = performance.now();
    const answer = await gateway.callTool(
      (req.params as { name: string }).name,
      parsed.data,
      `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
    );
    return {
      status: answer.status,
      result: answer.body,
      latency_ms: answer.body.latency_ms ?? null,
      round_trip_ms: performance.now() - started,
      trace_id: traceId,
      trace_url: opts.jaeger === undefined ? null : `${opts.jaeger.replace(/\/+$/, "")}/trace/${traceId}`,
    };
  });

  app.get("/api/episodes", async () => episodesOverview(gateway));

  app.post("/api/episodes", async (req, reply) => {
    const parsed = StartEpisodeBody.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send(invalid(z.prettifyError(parsed.error)));
    const answer = await gateway.startEpisode(parsed.data.server, parsed.data.config);
    return reply.code(answer.status).send(answer.body);
  });

  app.delete("/api/episodes/:id", async (req, reply) => {
    const answer = await gateway.endEpisode((req.params as { id: string }).id);
    return reply.code(answer.status).send(answer.body);
  });

  app.get("/api/bundles", async () => ({ bundles: await bundles.list() }));

  app.get("/api/bundles/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    const bundle = await bundles.get(id);
    return bundle ?? reply.code(404).send(notFound(`no bundle ${id}`));
  });

  // Runs in flight on the rollout service (and its last finished ones), polled by the Runs view.
  app.get("/api/live-runs", async () => ({
    rollout: rollout?.url ?? null,
    runs: rollout ? await rollout.runs() : [],
  }));

  app.get("/api/live-runs/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    const run = await rollout?.run(id);
    if (run === undefined) return reply.code(404).send(notFound(`no live run ${id}`));
    return run;
  });

  app.get("/api/*", async (req, reply) => reply.code(404).send(notFound(`no route ${req.url}`)));

  // The web app: a file under dist, else index.html (the app routes on the path).
  app.get("/*", async (req, reply) => {
    const path = decodeURIComponent((req.url.split("?")[0] ?? "/").slice(1));
    const file = resolve(assets, path);
    const inside = file.startsWith(assets + sep) && extname(file) !== "";
    const target = inside && existsSync(file) ? file : join(assets, "index.html");
    reply.header("content-type", TYPES[extname(target)] ?? "application/octet-stream");
    return reply.send(await readFile(target));
  });

  return app;
}

function invalid(message: string) {
  return { error: { code: "INVALID_ARGUMENTS", message } };
}

function notFound(message: string) {
  return { error: { code: "NOT_FOUND", message } };
}
