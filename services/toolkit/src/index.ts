export { CALLER_META_KEY, UNAVAILABLE_META_KEY } from "@rlfactory/proto/mcp-meta";
export type {
  Environment,
  EnvironmentSpec,
  EnvironmentToolBuilder,
  EnvironmentToolSpec,
  JsonSchemaEnvironmentToolBuilder,
  JsonSchemaEnvironmentToolSpec,
} from "./define-environment.ts";
export { defineEnvironment } from "./define-environment.ts";
export type {
  ToolContext,
  ToolDefinition,
  ToolHints,
  ToolRenderInput,
  ToolReturn,
  ToolSpec,
} from "./define-tool.ts";
export { defineTool } from "./define-tool.ts";
export type { EpisodeLimits } from "./episode-store.ts";
export type { HttpServeOptions, HttpServing } from "./http-endpoint.ts";
export type { HttpRoute, HttpRouteResponse } from "./http-route.ts";
// MCP serving plumbing for other servers of MCP (the gateway's northbound /mcp and --mcp-stdio).
export { LegacyHttpSessions } from "./legacy-http-sessions.ts";
export { LiveInstances } from "./live-instances.ts";
export type { Logger } from "./logger.ts";
export { logger } from "./logger.ts";
export type { RawToolResult } from "./raw-result.ts";
export { rawResult } from "./raw-result.ts";
export type { ServeMode } from "./serve-from-args.ts";
export { parseServeArgs, SERVE_USAGE, ServeArgsError, serveFromArgs } from "./serve-from-args.ts";
export type { StdioServeOptions } from "./stdio-endpoint.ts";
export { serveStdioEndpoint } from "./stdio-endpoint.ts";
export { ToolError } from "./tool-error.ts";
export type { ToolServer, ToolServerOptions } from "./tool-server.ts";
export { createToolServer } from "./tool-server.ts";
