// The SERVER span around a tools/call, continuing the caller's trace from `params._meta.traceparent`
// (attribute names follow the OpenTelemetry MCP and GenAI semantic conventions).
import type { CallToolResult } from "@modelcontextprotocol/server";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { extractTraceContext } from "@rlfactory/telemetry";

const tracer = trace.getTracer("@rlfactory/toolkit");

export interface ToolCallSpanInfo {
  toolName: string;
  meta: Record<string, unknown> | undefined;
  requestId: string | number;
  sessionId: string | undefined;
}

export function withToolCallSpan(
  info: ToolCallSpanInfo,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const attributes: Record<string, string> = {
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": info.toolName,
    "gen_ai.operation.name": "execute_tool",
    "jsonrpc.request.id": String(info.requestId),
  };
  if (info.sessionId !== undefined) attributes["mcp.session.id"] = info.sessionId;
  return tracer.startActiveSpan(
    `tools/call ${info.toolName}`,
    { kind: SpanKind.SERVER, attributes },
    extractTraceContext(info.meta),
    async (span) => {
      try {
        const result = await run();
        if (result.isError === true) {
          span.setAttribute("error.type", "tool_error");
          const first = result.content?.[0];
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: first?.type === "text" ? first.text : "tool error",
          });
        }
        return result;
      } finally {
        span.end();
      }
    },
  );
}
