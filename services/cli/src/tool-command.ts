// `rlf tool NAME [server options] [--stdio | --http PORT [--host H]]`: one bundled MCP tool server.
import { parseArgs } from "node:util";
import { UsageError } from "@rlfactory/kit/command-line";
import { serveFromArgs } from "@rlfactory/toolkit";
import { bundledToolServer, onDemandToolServers, toolServers } from "@rlfactory/tools/tool-servers";

const SERVE = "(--stdio | --http PORT [--host H])";

const SERVE_OPTIONS = {
  stdio: { type: "boolean" },
  http: { type: "string" },
  host: { type: "string" },
} as const;

/** What `rlf tool NAME --help` adds to the command's help: that server's summary and flags (or the list). */
export function toolHelp(name: string | undefined): string {
  const entry = name ? bundledToolServer(name) : undefined;
  if (!name || !entry) return `\nServers:\n${serverList()}\n`;
  return `\nrlf tool ${name} ${entry.usage} ${SERVE}\n  ${entry.summary}\n`;
}

function serverList(): string {
  return Object.entries({ ...toolServers, ...onDemandToolServers })
    .map(([n, e]) => `  ${n.padEnd(12)} ${e.summary}`)
    .join("\n");
}

export async function runToolCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const entry = name ? bundledToolServer(name) : undefined;
  if (!name || !entry) {
    throw new UsageError(`rlf tool needs a server name:\n${serverList()}`);
  }
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: rest, options: { ...entry.options, ...SERVE_OPTIONS }, strict: true }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; usage: rlf tool ${name} ${entry.usage} ${SERVE}`);
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
