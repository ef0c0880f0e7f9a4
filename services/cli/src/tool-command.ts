// `rlf tool NAME [--stdio | --http PORT]`: one bundled MCP tool server.
import { serveFromArgs } from "@rlfactory/toolkit";
import { toolServers } from "@rlfactory/tools";
import { UsageError } from "./usage-error.ts";

export async function runToolCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const create = name ? toolServers[name] : undefined;
  if (!name || !create) {
    throw new UsageError(`rlf tool needs one of: ${Object.keys(toolServers).join(", ")}`);
  }
  await serveFromArgs(create(), rest);
  return -1;
}
