// A tool server: a named set of tools, servable over stdio and/or Streamable HTTP, to which tools
// can be added at runtime (clients then get notifications/tools/list_changed).
import type { ToolDefinition } from "./define-tool.ts";
import { type HttpServeOptions, type HttpServing, serveHttpEndpoint } from "./http-endpoint.ts";
import type { HttpRoute } from "./http-route.ts";
import { LiveInstances } from "./live-instances.ts";
import { type Logger, logger } from "./logger.ts";
import { createMcpInstance } from "./mcp-instance.ts";
import { type StdioServeOptions, serveStdioEndpoint } from "./stdio-endpoint.ts";
import { ToolRegistry } from "./tool-registry.ts";

export interface ToolServerOptions {
  name: string;
  version: string;
  tools: readonly ToolDefinition[];
  /** Where logs go; default: the toolkit's pino logger on stderr. */
  logger?: Logger;
  /** Plain JSON HTTP routes served beside /mcp when serving over HTTP (e.g. search's /retrieve). */
  routes?: readonly HttpRoute[];
}

export interface ToolServer {
  readonly name: string;
  readonly version: string;
  /** Registers a tool; connected clients receive notifications/tools/list_changed. Throws on a duplicate name. */
  addTool(def: ToolDefinition): void;
  hasTool(name: string): boolean;
  /** Serves MCP on stdin/stdout; resolves when the client closes stdin. */
  serveStdio(opts?: StdioServeOptions): Promise<void>;
  /** Serves MCP on http://host:port/mcp (+ /healthz); resolves once listening. */
  serveHttp(opts: HttpServeOptions): Promise<HttpServing>;
}

export function createToolServer(opts: ToolServerOptions): ToolServer {
  const log = (opts.logger ?? logger).child({ server: opts.name });
  const registry = new ToolRegistry(opts.tools);
  const live = new LiveInstances();
  const info = { name: opts.name, version: opts.version };
  const createInstance = () => createMcpInstance({ info, registry, log });
  registry.onChange(() => live.notifyToolsChanged(log));

  return {
    name: opts.name,
    version: opts.version,
    addTool: (def) => registry.add(def),
    hasTool: (name) => registry.has(name),
    serveStdio: (stdioOpts) => serveStdioEndpoint({ createInstance, live, log }, stdioOpts),
    serveHttp: (httpOpts) =>
      serveHttpEndpoint(
        { createInstance, registry, live, log, ...(opts.routes ? { routes: opts.routes } : {}) },
        httpOpts,
      ),
  };
}
