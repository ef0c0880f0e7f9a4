// Serving a tool server over Streamable HTTP on `/mcp`, plus `GET /healthz` and the server's extra
// routes. On a loopback interface every request, whatever its path, must name a loopback host in its
// `Host` header (a page on another site that rebinds its DNS name to 127.0.0.1 is refused with 403).
//
// Both protocol eras share the endpoint. A request carrying the 2026-07-28 per-request `_meta`
// envelope (stateless; `server/discover`) goes to the SDK's `createMcpHandler`, which needs a
// fresh MCP instance per request (cheap here: see mcp-instance.ts). Everything else is 2025-era
// traffic, served with sessions (legacy-http-sessions.ts) rather than the SDK's per-request
// stateless fallback, so a long-lived gateway connection keeps one instance.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { localhostHostValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, isLegacyRequest, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import { type HttpRoute, RouteBodyError, readJsonBody } from "./http-route.ts";
import { InFlight } from "./in-flight.ts";
import { LegacyHttpSessions } from "./legacy-http-sessions.ts";
import type { LiveInstances } from "./live-instances.ts";
import type { Logger } from "./logger.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import { trackedResponse } from "./tracked-response.ts";

/** How long an idle keep-alive connection stays open (announced as `Keep-Alive: timeout=65`). */
export const KEEP_ALIVE_MS = 65_000;

export interface HttpServeOptions {
  /** TCP port; 0 picks a free one (see `HttpServing.port`). */
  port: number;
  /**
   * Interface to bind; default 127.0.0.1. On loopback, every route checks the Host header (DNS
   * rebinding): a request naming another host is answered 403.
   */
  host?: string;
  /** How long `close()` waits for running tool calls before cutting them off; default 10 s. */
  gracePeriodMs?: number;
  /** 2025-era sessions with no request and no open stream for this long are closed; default 30 min. */
  sessionIdleTimeoutMs?: number;
}

export interface HttpServing {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  port: number;
  /** Stops accepting, lets running tool calls finish (within the grace period), then closes everything. */
  close(): Promise<void>;
}

export interface HttpEndpointDeps {
  createInstance: () => Server;
  registry: ToolRegistry;
  live: LiveInstances;
  log: Logger;
  /** Extra JSON routes served beside /mcp and /healthz. */
  routes?: readonly HttpRoute[];
}

const DEFAULT_GRACE_MS = 10_000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function endpointUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") && !shown.startsWith("[") ? `[${shown}]` : shown}:${port}/mcp`;
}

const JsonRpcMessage = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.looseObject({ requestId: z.union([z.string(), z.number()]).optional() }).optional(),
});
type JsonRpcMessage = z.infer<typeof JsonRpcMessage>;

/** The JSON-RPC message a POST carries (read from a clone; the SDK validates it fully), if any. */
async function jsonRpcMessage(request: Request): Promise<JsonRpcMessage | undefined> {
  if (request.method !== "POST") return undefined;
  try {
    const parsed = JsonRpcMessage.safeParse(await request.clone().json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Runs an extra route: parse JSON, call the handler (aborted if the client hangs up), answer JSON. */
function serveRoute(route: HttpRoute, req: IncomingMessage, res: ServerResponse, log: Logger): void {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  readJsonBody(req)
    .then((body) => route.handler(body, req, controller.signal))
    .then(
      (answer) => json(res, answer.status, answer.body),
      (error: unknown) => {
        if (error instanceof RouteBodyError) {
          json(res, error.status, { error: error.message });
          return;
        }
        log.error({ err: error, path: route.path }, "http route failed");
        if (!res.headersSent) json(res, 500, { error: "internal error" });
        else res.end();
      },
    );
}

export async function serveHttpEndpoint(
  deps: HttpEndpointDeps,
  opts: HttpServeOptions,
): Promise<HttpServing> {
  const { log } = deps;
  const host = opts.host ?? "127.0.0.1";
  const graceMs = opts.gracePeriodMs ?? DEFAULT_GRACE_MS;

  const legacy = new LegacyHttpSessions(deps.createInstance, deps.live, opts.sessionIdleTimeoutMs);
  const modern = createMcpHandler(() => deps.createInstance(), {
    legacy: "reject",
    onerror: (error) => log.debug({ err: error }, "mcp http request rejected"),
  });
  const stopNotifying = deps.registry.onChange(() => modern.notify.toolsChanged());
  // Tool-call exchanges in progress, counted until their response body is complete (or, for a
  // 2025-era call, until the client cancels it: no response follows a cancellation), so that a
  // shutdown lets running calls answer before their sessions are closed.
  const toolCalls = new InFlight();
  /** Running 2025-era calls by `${session}|${request id}`, to end their tracking on cancellation. */
  const cancellable = new Map<string, () => void>();
  const handleMcp = toNodeHandler(
    {
      fetch: async (request, options) => {
        const message = await jsonRpcMessage(request);
        const route = () =>
          isLegacyRequest(request, message).then((legacyEra) =>
            legacyEra ? legacy.handle(request) : modern.fetch(request, options),
          );
        const session = request.headers.get("mcp-session-id");
        if (session !== null && message?.method === "notifications/cancelled") {
          cancellable.get(`${session}|${message.params?.requestId}`)?.();
        }
        if (message?.method !== "tools/call") return route();
        const key = session === null ? undefined : `${session}|${message.id}`;
        const stop = toolCalls.begin();
        const end = () => {
          if (key !== undefined && cancellable.get(key) === end) cancellable.delete(key);
          stop();
        };
        if (key !== undefined) cancellable.set(key, end);
        try {
          return trackedResponse(await route(), end);
        } catch (error) {
          end();
          throw error;
        }
      },
    },
    { onerror: (error) => log.error({ err: error }, "mcp http handler failed") },
  );
  const validateHost = LOOPBACK.has(host) ? localhostHostValidation() : undefined;

  let draining = false;
  const server = createServer((req, res) => {
    if (validateHost !== undefined && !validateHost(req, res)) return;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      json(res, draining ? 503 : 200, { status: draining ? "draining" : "ok" });
      return;
    }
    const extra = deps.routes?.find((r) => r.path === path && r.method === req.method);
    if (extra) {
      if (draining) {
        json(res, 503, { error: "server is shutting down" });
        return;
      }
      serveRoute(extra, req, res, log);
      return;
    }
    if (path !== "/mcp") {
      json(res, 404, { error: "not found" });
      return;
    }
    if (draining) {
      res.setHeader("connection", "close");
      json(res, 503, {
        jsonrpc: "2.0",
        error: { code: -32_000, message: "Server is shutting down" },
        id: null,
      });
      return;
    }
    handleMcp(req, res).catch((error: unknown) => {
      log.error({ err: error }, "mcp http request failed");
      if (!res.headersSent)
        json(res, 500, { jsonrpc: "2.0", error: { code: -32_603, message: "Internal error" }, id: null });
      else res.end();
    });
  });
  // Idle keep-alive connections are closed by the client first (the gateway's pool drops them after
  // 30 s): a server that closes one first races the client's next request on it, which then fails
  // "other side closed" although the server never saw it (seen with 8,192 trajectories in flight).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  server.listen(opts.port, host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = async () => {
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if (!(await toolCalls.whenIdle(graceMs))) {
      log.warn({ running: toolCalls.count }, "grace period over; cancelling running tool calls");
    }
    stopNotifying();
    await modern.close();
    await legacy.closeAll();
    // Close connections as their last responses finish; cut whatever is left after a second.
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const cut = setTimeout(() => server.closeAllConnections(), 1_000);
    server.closeIdleConnections();
    await closed;
    clearInterval(sweep);
    clearTimeout(cut);
  };
  return {
    url: endpointUrl(host, port),
    port,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
