// A stdio MCP server behind a tap that writes down every request it is sent:
//   node mcp-request-log.ts LOG_FILE [--hide-tool NAME] -- COMMAND ARGS...
// Each JSON-RPC request the client sends (a message with a method and an id) appends one line to
// LOG_FILE: the method, and for tools/call the tool's name (`tools/call put`). Messages pass through
// unchanged, except that `--hide-tool NAME` removes that tool from the server's tools/list answers (the
// same server, as a client sees one that does not offer the tool).
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [logFile, ...rest] = process.argv.slice(2);
const dashes = rest.indexOf("--");
if (!logFile || dashes < 0 || dashes === rest.length - 1)
  throw new Error("usage: mcp-request-log.ts LOG_FILE [--hide-tool NAME] -- COMMAND ARGS...");
const options = rest.slice(0, dashes);
const hidden = options[0] === "--hide-tool" ? options[1] : undefined;
const [command, ...args] = rest.slice(dashes + 1);

writeFileSync(logFile, "");
const child = spawn(command!, args, { stdio: ["pipe", "pipe", "inherit"] });
/** Ids of the tools/list requests in flight, whose answers lose the hidden tool. */
const listing = new Set<unknown>();

createInterface({ input: process.stdin }).on("line", (line) => {
  try {
    const msg = JSON.parse(line) as { id?: unknown; method?: string; params?: { name?: string } };
    if (msg.method !== undefined && msg.id !== undefined) {
      appendFileSync(logFile, `${msg.method}${msg.method === "tools/call" ? ` ${msg.params?.name}` : ""}\n`);
      if (msg.method === "tools/list") listing.add(msg.id);
    }
  } catch {
    // not JSON: passed on as it is
  }
  child.stdin.write(`${line}\n`);
});
process.stdin.on("end", () => child.stdin.end());

createInterface({ input: child.stdout }).on("line", (line) => {
  let out = line;
  if (hidden !== undefined) {
    try {
      const msg = JSON.parse(line) as { id?: unknown; result?: { tools?: { name: string }[] } };
      if (listing.delete(msg.id) && msg.result?.tools) {
        msg.result.tools = msg.result.tools.filter((t) => t.name !== hidden);
        out = JSON.stringify(msg);
      }
    } catch {
      // not JSON
    }
  }
  process.stdout.write(`${out}\n`);
});
child.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => child.kill("SIGTERM"));
