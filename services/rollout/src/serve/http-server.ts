// The HTTP JSON surface (fastify), for callers without gRPC:
//   POST /v1/rollout   body: the request in JSON (rollout-request.ts) → `{ groups: [...] }`, or, with
//                      `Accept: application/x-ndjson` or `?stream=1`, one group per line as each completes
//   PUT  /v1/policy_version  `{ "version": 3 }` → the state below; the trainer calls it after each weight sync
//   GET  /v1/policy_version  `{ version, max_staleness, on_stale }`
//   GET  /v1/runs      `{ runs: [...] }`: the requests in flight and the last finished ones (run-tracker.ts)
//   GET  /v1/runs/:id  one of them with its curves (progress, status breakdown, reward per group)
//   GET  /healthz      `{ status: "ok" }` (the only route that needs no key when service.auth is on)
// Trajectories are the JSON records of trajectory.ts, unchanged (float64 logprobs, no rounding).
// A client that disconnects aborts its request. Bad input is 400 `{ error }`; a failure of the
// rollout as a whole is 500 `{ error }`, or, once an NDJSON stream has started, a last line `{ "error" }`.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import { groupToJson, type TrajectoryGroupJson } from "@rlfactory/clients";
import { httpCallerGone, readOversizedBody } from "@rlfactory/kit";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { z } from "zod";
import type { RolloutEngine } from "../rollout/rollout-engine.ts";
import { httpErrorFor } from "./errors.ts";
import type { PolicyVersionState } from "./policy-version.ts";
import type { RequestGuard } from "./request-guard.ts";
import { type ParsedRolloutRequest, parseRolloutRequest } from "./rollout-request.ts";
import { runRollout } from "./run-rollout.ts";
import type { RunTracker } from "./run-tracker.ts";

export interface RolloutHttpDeps {
  engine: RolloutEngine;
  versions: PolicyVersionState;
  log: Logger;
  /** Fires when the service stops: requests in flight end with their trajectories `aborted`. */
  stopping: AbortSignal;
  bodyLimitBytes: number;
  /** API keys and the inference allow-list. */
  guard: RequestGuard;
  /** Records each request as a run, served by GET /v1/runs. */
  tracker?: RunTracker;
}

export const NDJSON = "application/x-ndjson";

const ROUTE = "POST /v1/rollout";
const policyVersionBody = z.strictObject({ version: z.union([z.number().int(), z.string().min(1)]) });
const rolloutQuery = z.object({ stream: z.enum(["0", "1", "true", "false"]).optional() });

export interface RolloutHttpServer {
  app: FastifyInstance;
  /**
   * Stops accepting, waits for the responses in flight to finish, then drops the connections left
   * (idle keep-alive ones, and ones that never sent a request: Node would wait out headersTimeout).
   */
  close(): Promise<void>;
}

export function buildRolloutHttpServer(deps: RolloutHttpDeps): RolloutHttpServer {
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimitBytes });
  const open = new Set<ServerResponse>();
  let drained: (() => void) | undefined;
  app.addHook("onRequest", async (_req, reply) => {
    open.add(reply.raw);
    reply.raw.once("close", () => {
      open.delete(reply.raw);
      if (open.size === 0) drained?.();
    });
  });

  // Fastify's own rejections (bad JSON, wrong content type, body too large) answer `{ error }` too.
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const statusCode = err.statusCode ?? 500;
    if (statusCode >= 500) deps.log.error({ err }, "http request failed");
    return reply.code(statusCode).send({ error: err.message });
  });

  // Every route but /healthz needs a key when service.auth is on (checked before the body is read).
  app.addHook("onRequest", async (req, reply) => {
    if (req.url === "/healthz") return;
    try {
      deps.guard.authenticate(req.headers.authorization);
    } catch (err) {
      const { statusCode, body } = httpErrorFor(err);
      return reply.code(statusCode).send(body);
    }
  });

  // A body declared over the limit is answered 413 after it has been read (readOversizedBody says why),
  // once the caller is known.
  app.addHook("onRequest", async (req, reply) => {
    const oversized = await readOversizedBody(req.raw, deps.bodyLimitBytes);
    if (oversized === undefined) return;
    if (!oversized.drained) reply.header("connection", "close");
    return reply.code(413).send({
      error: `the request body has ${oversized.declared} bytes, more than this service takes (${deps.bodyLimitBytes})`,
    });
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/v1/policy_version", async () => deps.versions.view());
  app.put("/v1/policy_version", async (req, reply) => {
    const body = policyVersionBody.safeParse(req.body);
    if (!body.success) {
      return reply
        .code(400)
        .send({ error: 'the body must be { "version": <integer step or non-empty string> }' });
    }
    const state = deps.versions.set(body.data.version);
    deps.log.info({ version: state.version }, "policy version set");
    return state;
  });

  app.get("/v1/runs", async () => ({ runs: deps.tracker?.list() ?? [] }));
  app.get("/v1/runs/:id", async (req, reply) => {
    const { id } = req.params as { id: string };
    const run = deps.tracker?.get(id);
    return run ?? reply.code(404).send({ error: `no run ${id}` });
  });

  app.post("/v1/rollout", async (req, reply) => {
    const query = rolloutQuery.safeParse(req.query);
    if (!query.success) return reply.code(400).send({ error: "stream must be 1, 0, true or false" });
    let request: ParsedRolloutRequest;
    try {
      request = parseRolloutRequest(req.body);
      deps.guard.checkInference(request);
    } catch (err) {
      const { statusCode, body } = httpErrorFor(err);
      return reply.code(statusCode).send(body);
    }
    // `?stream=` decides when given; else the Accept header.
    const flag = query.data.stream;
    const stream = flag === undefined ? wantsNdjson(req) : flag === "1" || flag === "true";
    return stream ? streamGroups(deps, request, reply) : allGroups(deps, request, reply);
  });

  return {
    app,
    close: async () => {
      const closed = app.close();
      if (open.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      app.server.closeAllConnections();
      await closed;
    },
  };
}

function wantsNdjson(req: FastifyRequest): boolean {
  return (req.headers.accept ?? "").split(",").some((part) => part.trim().startsWith(NDJSON));
}

async function allGroups(deps: RolloutHttpDeps, request: ParsedRolloutRequest, reply: FastifyReply) {
  const groups: TrajectoryGroupJson[] = [];
  try {
    await runRollout({
      engine: deps.engine,
      versions: deps.versions,
      request,
      callerGone: httpCallerGone(reply.raw),
      stop: deps.stopping,
      log: deps.log,
      via: ROUTE,
      ...(deps.tracker && { tracker: deps.tracker }),
      send: (group) => {
        groups.push(groupToJson(group));
      },
    });
  } catch (err) {
    const { statusCode, body } = httpErrorFor(err);
    return reply.code(statusCode).send(body);
  }
  return reply.send({ groups });
}

function streamGroups(deps: RolloutHttpDeps, request: ParsedRolloutRequest, reply: FastifyReply) {
  const out = new PassThrough();
  const gone = httpCallerGone(reply.raw);
  runRollout({
    engine: deps.engine,
    versions: deps.versions,
    request,
    callerGone: gone,
    stop: deps.stopping,
    log: deps.log,
    via: `${ROUTE} (ndjson)`,
    ...(deps.tracker && { tracker: deps.tracker }),
    send: async (group) => {
      if (!out.write(`${JSON.stringify(groupToJson(group))}\n`)) await once(out, "drain", { signal: gone });
    },
  }).then(
    () => out.end(),
    (err: unknown) => out.end(`${JSON.stringify(httpErrorFor(err).body)}\n`),
  );
  return reply.type(NDJSON).send(out);
}
