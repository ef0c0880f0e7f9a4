// Serving a tool server over stdio (one connection; either protocol era, chosen by the client's
// opening message). Resolves when the client closes our stdin.
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { coalesceWrites } from "./coalesced-writes.ts";
import type { LiveInstances } from "./live-instances.ts";
import type { Logger } from "./logger.ts";

export interface StdioServeOptions {
  /** Defaults to process.stdin / process.stdout. */
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioEndpointDeps {
  createInstance: () => Server;
  live: LiveInstances;
  log: Logger;
}

export function serveStdioEndpoint(deps: StdioEndpointDeps, opts: StdioServeOptions = {}): Promise<void> {
  const stdin = opts.stdin ?? process.stdin;
  // Answers to requests in flight together leave in one write (see coalesced-writes.ts).
  const stdout = coalesceWrites(opts.stdout ?? process.stdout);
  const handle = serveStdio(() => deps.live.add(deps.createInstance()), {
    transport: new StdioServerTransport(stdin, stdout),
    onerror: (error) => deps.log.warn({ err: error }, "mcp stdio error"),
  });
  return new Promise((resolve) => {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      handle
        .close()
        .catch((error: unknown) => deps.log.warn({ err: error }, "mcp stdio close failed"))
        .finally(resolve);
    };
    stdin.once("end", end);
    stdin.once("close", end);
  });
}
