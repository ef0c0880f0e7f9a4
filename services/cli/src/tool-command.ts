// `rlf tool NAME [server options] [--stdio | --http PORT [--host H]]`: one bundled MCP tool server.
import { parseArgs } from "node:util";
import { serveFromArgs } from "@rlfactory/toolkit";
import { bundledToolServer, toolServers } from "@rlfactory/tools";
import { UsageError } from "./usage-error.ts";

const SERVE_OPTIONS = {
  stdio: { type: "boolean" },
  http: { type: "string" },
  host: { type: "string" },
} as const;

export async function runToolCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const entry = name ? bundledToolServer(name) : undefined;
  if (!name || !entry) {
    const list = Object.entries(toolServers).map(([n, e]) => `  ${n.padEnd(12)} ${e.summary}`);
    throw new UsageError(`rlf tool needs a server name:\n${list.join("\n")}`);
  }
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: rest, options: { ...entry.options, ...SERVE_OPTIONS }, strict: true }));
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message}; usage: rlf tool ${name} ${entry.usage} [--stdio | --http PORT [--host H]]`,
    );
  }
  const own = Object.fromEntries(Object.keys(entry.options).map((k) => [k, values[k]]));
  const serveArgs = [
    ...(values.stdio ? ["--stdio"] : []),
    ...(typeof values.http === "string" ? ["--http", values.http] : []),
    ...(typeof values.host === "string" ? ["--host", values.host] : []),
  ];
  const server = await entry.create(own as never);
  await serveFromArgs(server, serveArgs);
  return -1;
}
