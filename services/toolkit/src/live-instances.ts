// The long-lived MCP instances currently connected (stdio connections and 2025-era HTTP sessions),
// so a change to the tool list reaches each of their clients.
import type { Server } from "@modelcontextprotocol/server";
import type { Logger } from "./logger.ts";

export class LiveInstances {
  private readonly instances = new Set<Server>();

  /** Tracks `server` until it closes. */
  add(server: Server): Server {
    this.instances.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      this.instances.delete(server);
      previous?.();
    };
    return server;
  }

  get size(): number {
    return this.instances.size;
  }

  notifyToolsChanged(log: Logger): void {
    for (const server of this.instances) {
      if (server.transport === undefined) continue;
      server
        .sendToolListChanged()
        .catch((error: unknown) => log.debug({ err: error }, "tools/list_changed not delivered"));
    }
  }
}
