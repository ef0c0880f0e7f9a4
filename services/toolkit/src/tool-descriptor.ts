// The MCP `Tool` entry (JSON Schemas included) for a definition: converted once, when the tool is
// registered, and served as is by every tools/list.
import type { Tool } from "@modelcontextprotocol/server";
import { UNAVAILABLE_META_KEY } from "@rlfactory/proto/mcp-meta";
import { z } from "zod";
import type { ToolDefinition } from "./define-tool.ts";

function jsonSchema(schema: z.ZodObject, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as Record<
    string,
    unknown
  >;
  // 2020-12 is MCP's default dialect; leaving `$schema` out keeps draft-07 validators (plain Ajv) happy.
  return rest;
}

export function toolDescriptor(def: ToolDefinition): Tool {
  const tool: Tool = {
    name: def.name,
    description: def.description,
    inputSchema: (def.inputJsonSchema ?? jsonSchema(def.input, "input")) as Tool["inputSchema"],
  };
  if (def.title !== undefined) tool.title = def.title;
  if (def.output !== undefined) tool.outputSchema = jsonSchema(def.output, "output") as Tool["outputSchema"];
  if (def.annotations !== undefined) tool.annotations = { ...def.annotations };
  if (def.unavailable !== undefined) tool._meta = { [UNAVAILABLE_META_KEY]: def.unavailable };
  return tool;
}
