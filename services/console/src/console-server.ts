// The console's HTTP server: a JSON API under /api (the gateway's admin API and the run directories,
// read on each request) and the built web app (web/dist) for every other GET, so each view's URL
// can be opened directly and shared.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiKeyAuth } from "@rlfactory/kit";
import Fastify, { type FastifyInstance } from "fastify";
import { GatewayAdminClient, GatewayAdminError } from "./gateway-admin-client.ts";
import { RolloutServiceClient, RolloutServiceError } from "./rollout-service-client.ts";
import { RunDirectories } from "./run-directories.ts";
import { runResponse, trajectoryResponse } from "./run-responses.ts";
import { toolsOverview } from "./tools-overview.ts";

export const CONSOLE_PORT = 8090;
export const DEFAULT_GATEWAY_ADMIN = "http://127.0.0.1:8080";

/** Where `npm run build -w @rlfactory/console` (and npm install) writes the web app. */
export const ASSETS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../web/dist");

export interface ConsoleOptions {
  gatewayAdmin: string;
  runsDir: string;
  /** The rollout service's HTTP URL (`rlf rollout serve`): its runs in flight appear live. */
  rollout?: string;
  /**
   * API keys: with any, every /api request needs `authorization: Bearer KEY` (the app asks for the key
   * once and sends it). The app's files and GET /healthz need none: they hold no data.
   */
  apiKeys?: readonly string[];
  assetsDir?: string;
}

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
  const gateway = new GatewayAdminClient(opts.gatewayAdmin);
  const runs = new RunDirectories(opts.runsDir);
  const rollout = opts.rollout === undefined ? undefined : new RolloutServiceClient(opts.rollout);
  const app = Fastify({ logger: false });

  app.setErrorHandler((err, _req, reply) => {
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
    return trajectoryResponse(run, i, t, await runs.summary(run));
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

function notFound(message: string) {
  return { error: { code: "NOT_FOUND", message } };
}
