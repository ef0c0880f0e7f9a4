// Executes one tools/call against a registered tool and shapes the MCP result: validated input,
// structured output plus its text rendering, and errors reduced to one short line for the client.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { argumentErrorMessage } from "./argument-error.ts";
import type { ToolContext, ToolDefinition } from "./define-tool.ts";
import type { Logger } from "./logger.ts";
import { isRawResult } from "./raw-result.ts";
import { ToolError } from "./tool-error.ts";

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function structuredResult(def: ToolDefinition, output: Record<string, unknown>): CallToolResult {
  const text = def.render !== undefined ? def.render(output) : JSON.stringify(output);
  return { content: [{ type: "text", text }], structuredContent: output };
}

/** Turns whatever the handler returned into a result; throws on a return that breaks the tool's contract. */
function shapeResult(def: ToolDefinition, returned: unknown): CallToolResult {
  if (isRawResult(returned)) {
    const result: CallToolResult = { content: returned.content };
    if (returned.structuredContent !== undefined) result.structuredContent = returned.structuredContent;
    return result;
  }
  if (def.output !== undefined) {
    const parsed = def.output.safeParse(returned);
    if (!parsed.success) {
      throw new Error(
        `tool ${def.name} returned output that does not match its output schema: ${parsed.error.message}`,
      );
    }
    return structuredResult(def, parsed.data);
  }
  if (typeof returned === "string") return { content: [{ type: "text", text: returned }] };
  if (isPlainObject(returned)) return structuredResult(def, returned);
  throw new Error(
    `tool ${def.name} returned ${returned === null ? "null" : typeof returned}; expected an object or a string`,
  );
}

export async function runToolCall(
  def: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
  log: Logger,
): Promise<CallToolResult> {
  const parsed = def.input.safeParse(args ?? {});
  if (!parsed.success) return errorResult(argumentErrorMessage(def.name, parsed.error));
  try {
    return shapeResult(def, await def.handler(parsed.data, ctx));
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    if (ctx.signal.aborted) return errorResult(`tool ${def.name} was cancelled`);
    log.error({ err: error, tool: def.name }, "tool handler failed");
    return errorResult(`internal error in tool ${def.name}`);
  }
}
