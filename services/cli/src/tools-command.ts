// `rlf tools list|call --gateway HOST:PORT`: a gRPC client of the gateway for people and scripts.

import { parseArgs } from "node:util";
import { GatewayClient, resultText } from "@rlfactory/clients/gateway-client";
import type { WireTool, WireToolResult } from "@rlfactory/gateway";
import { UsageError } from "@rlfactory/kit/command-line";

export async function runToolsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      gateway: { type: "string", short: "g", default: process.env.RLF_GATEWAY ?? "127.0.0.1:50051" },
      json: { type: "boolean", default: false },
      server: { type: "string" },
      args: { type: "string", short: "a" },
      "deadline-ms": { type: "string" },
      "no-cache": { type: "boolean", default: false },
      episode: { type: "string" },
      "api-key": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const apiKey = values["api-key"] ?? process.env.RLF_API_KEY;
  const client = new GatewayClient(values.gateway, { ...(apiKey ? { apiKey } : {}), rpcTimeoutMs: 0 });
  try {
    if (sub === "list") {
      const tools = await client.listTools(values.server ?? "");
      process.stdout.write(
        values.json ? `${JSON.stringify(tools.map(jsonTool), null, 2)}\n` : formatTools(tools),
      );
      return 0;
    }
    if (sub === "call") {
      const name = positionals[0];
      if (!name) throw new UsageError("rlf tools call needs a tool NAME (server__tool)");
      const deadline = values["deadline-ms"] ? Number(values["deadline-ms"]) : 0;
      if (!Number.isInteger(deadline) || deadline < 0)
        throw new UsageError("--deadline-ms must be a whole number");
      const result = await client.callTool({
        name,
        arguments_json: values.args ?? "{}",
        deadline_ms: deadline,
        cache: values["no-cache"] ? "CACHE_BYPASS" : "CACHE_DEFAULT",
        episode_id: values.episode ?? "",
      });
      process.stdout.write(
        values.json ? `${JSON.stringify(jsonResult(result), null, 2)}\n` : formatResult(result),
      );
      return result.error_code === "OK" && !result.is_error ? 0 : 1;
    }
    throw new UsageError(`rlf tools needs "list" or "call", not "${sub ?? ""}"`);
  } catch (err) {
    const e = err as { code?: number; details?: string };
    if (typeof e.code === "number" && e.details !== undefined) {
      throw new Error(`gateway ${values.gateway}: ${e.details}`);
    }
    throw err;
  } finally {
    client.close();
  }
}

function jsonTool(t: WireTool) {
  return {
    name: t.name,
    server: t.server,
    title: t.title,
    description: t.description,
    input_schema: JSON.parse(t.input_schema_json || "{}"),
    ...(t.output_schema_json ? { output_schema: JSON.parse(t.output_schema_json) } : {}),
    annotations: t.annotations,
    cacheable: t.cacheable,
    idempotent: t.idempotent,
    schema_version: t.schema_version,
  };
}

function formatTools(tools: WireTool[]): string {
  if (tools.length === 0) return "no tools\n";
  const width = Math.max(...tools.map((t) => t.name.length));
  const lines = tools.map((t) => {
    const flags = [t.cacheable ? "cached" : "", t.idempotent ? "idempotent" : ""].filter(Boolean).join(",");
    const description = (t.description.split("\n", 1)[0] ?? "").slice(0, 80);
    return `${t.name.padEnd(width)}  ${flags.padEnd(17)}  ${description}`;
  });
  return `${lines.join("\n")}\n`;
}

function jsonResult(r: WireToolResult) {
  return {
    name: r.name,
    content: r.content.map((c) =>
      c.text
        ? { type: "text", text: c.text.text }
        : c.image
          ? { type: "image", mimeType: c.image.mime_type, bytes: c.image.data.length }
          : { type: c.kind ?? "unknown" },
    ),
    structured_content: r.structured_content_json ? JSON.parse(r.structured_content_json) : undefined,
    is_error: r.is_error,
    error_code: r.error_code,
    error_message: r.error_message,
    latency_ms: Number(r.latency_ms),
    cache_hit: r.cache_hit,
    attempts: r.attempts,
    truncated: r.truncated,
  };
}

function formatResult(r: WireToolResult): string {
  if (r.error_code !== "OK") return `error ${r.error_code}: ${r.error_message}\n`;
  const text = resultText(r);
  return `${r.is_error ? "tool error: " : ""}${text}${text.endsWith("\n") ? "" : "\n"}`;
}
