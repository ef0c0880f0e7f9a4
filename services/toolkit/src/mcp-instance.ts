// One MCP protocol instance over the shared tool registry. The SDK binds an instance to a single
// transport (a stdio connection, a 2025-era HTTP session, or one 2026-era HTTP request), so
// instances are built on demand; building one is cheap: the tool list and its JSON Schemas are
// precomputed in the registry, and the JSON Schema validator is shared.
import { type Implementation, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import type { ToolContext } from "./define-tool.ts";
import type { Logger } from "./logger.ts";
import { runToolCall } from "./run-tool-call.ts";
import { withToolCallSpan } from "./tool-call-span.ts";
import type { ToolRegistry } from "./tool-registry.ts";

let sharedValidator: AjvJsonSchemaValidator | undefined;

export interface McpInstanceDeps {
  info: Implementation;
  registry: ToolRegistry;
  log: Logger;
}

export function createMcpInstance({ info, registry, log }: McpInstanceDeps): Server {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(info, {
    capabilities: { tools: { listChanged: true } },
    jsonSchemaValidator: sharedValidator,
  });
  server.setRequestHandler("tools/list", () => ({ tools: registry.list() }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args, _meta: meta } = request.params;
    const tool = registry.get(name);
    if (tool === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const unavailable = tool.definition.unavailable;
    if (unavailable !== undefined)
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${name} is unavailable: ${unavailable}`);
    const toolCtx: ToolContext = { signal: ctx.mcpReq.signal };
    if (meta !== undefined) toolCtx.meta = meta;
    if (ctx.sessionId !== undefined) toolCtx.sessionId = ctx.sessionId;
    const result = await withToolCallSpan(
      { toolName: name, meta, requestId: ctx.mcpReq.id, sessionId: ctx.sessionId },
      () => runToolCall(tool.definition, args, toolCtx, log),
    );
    return server.projectCallToolResult(result, tool.descriptor.outputSchema);
  });
  server.onerror = (error) => log.warn({ err: error }, "mcp protocol error");
  return server;
}
