// The northbound MCP endpoint, `/mcp` on the admin port (Streamable HTTP), and its stdio twin.
//
// Both protocol eras share the endpoint, told apart as the SDK does (isLegacyRequest): a request
// carrying the 2026-07-28 per-request `_meta` envelope (stateless; `server/discover`) goes to the SDK's
// createMcpHandler, with a fresh MCP instance per request; everything else is 2025-era traffic
// (initialize handshake, 2025-11-25 and earlier), served with sessions so a client keeps its instance
// and receives notifications/tools/list_changed on its GET stream.
//
// Auth: with API keys configured, every request (each 2026 request, each request of a 2025 session)
// must carry `authorization: Bearer KEY`, as gRPC calls do; otherwise it is answered 401. On a
// loopback admin interface a request must also name a loopback host in its `Host` header (403
// otherwise): a web page whose DNS name rebinds to 127.0.0.1 cannot drive the tools.
import type { IncomingMessage, ServerResponse } from "node:http";
import { localhostHostValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, isLegacyRequest } from "@modelcontextprotocol/server";
import { LegacyHttpSessions, LiveInstances, serveStdioEndpoint } from "@rlfactory/toolkit";
import type { ApiKeyAuth } from "./auth.ts";
import { createGatewayMcpServer, type McpServerDeps } from "./mcp-server.ts";

export interface McpEndpoint {
  /** Serves one `/mcp` request (any method). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function createMcpEndpoint(deps: McpServerDeps & { auth: ApiKeyAuth; host: string }): McpEndpoint {
  const { log } = deps;
  const validateHost = LOOPBACK.has(deps.host) ? localhostHostValidation() : undefined;
  const live = new LiveInstances();
  const createInstance = () => createGatewayMcpServer(deps);
  const legacy = new LegacyHttpSessions(createInstance, live);
  const modern = createMcpHandler(() => createInstance(), {
    legacy: "reject",
    onerror: (error) => log.debug({ err: error }, "mcp (northbound) request rejected"),
  });
  const stopNotifying = deps.catalog.onChange(() => {
    live.notifyToolsChanged(log);
    modern.notify.toolsChanged();
  });
  const nodeHandler = toNodeHandler(
    {
      fetch: async (request, options) =>
        (await isLegacyRequest(request)) ? legacy.handle(request) : modern.fetch(request, options),
    },
    { onerror: (error) => log.error({ err: error }, "mcp (northbound) handler failed") },
  );
  return {
    async handle(req, res) {
      if (validateHost !== undefined && !validateHost(req, res)) return;
      if (!deps.auth.check(req.headers.authorization)) {
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: {
              code: -32_001,
              message: "UNAUTHENTICATED: missing or invalid API key (authorization: Bearer KEY)",
            },
            id: null,
          }),
        );
        return;
      }
      await nodeHandler(req, res);
    },
    async close() {
      stopNotifying();
      await modern.close();
      await legacy.closeAll();
    },
  };
}

/**
 * The same MCP server over stdio (`rlf gateway --mcp-stdio`): one connection, either era, no API key
 * (the process that spawned the gateway owns it). Resolves when the client closes stdin.
 */
export function serveMcpStdio(deps: McpServerDeps): Promise<void> {
  const live = new LiveInstances();
  const stopNotifying = deps.catalog.onChange(() => live.notifyToolsChanged(deps.log));
  return serveStdioEndpoint({
    createInstance: () => createGatewayMcpServer(deps),
    live,
    log: deps.log,
  }).finally(stopNotifying);
}
