// Why the SQL engine (better-sqlite3, a native addon) could not load, as one line a user can act on.
// The case that matters: node_modules installed under one Node and run under another (Node 20 → 22),
// where Node's own message spans five lines and its first line names only the module's path.
import { withoutHostPaths } from "./host-paths.ts";

const MAX_MESSAGE = 600;

export function engineLoadError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi) {
    return (
      `better-sqlite3 was built for another Node.js (NODE_MODULE_VERSION ${abi[1]}; ` +
      `Node ${process.version} needs ${abi[2]}): run \`npm rebuild better-sqlite3\` ` +
      "(or `npm install` again) with this Node, then restart the server"
    );
  }
  const line = withoutHostPaths(message.replace(/\s+/g, " ").trim());
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 3)}...` : line;
}
