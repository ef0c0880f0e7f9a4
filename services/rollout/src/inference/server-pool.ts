// The inference servers behind one sampler: one keep-alive connection pool per server, routed by the
// kit's EndpointPool (least-loaded choice, sticky sessions so a conversation stays with its server's
// prefix cache, ejection with a doubling cool-down and re-admission; the rules are in
// services/kit/src/endpoint-pool.ts). A server that fails with a connection error or a 5xx is
// reported `failed` by the transport; its next success resets it.

import { normaliseServerUrl } from "@rlfactory/clients";
import { EndpointPool, type EndpointStatus } from "@rlfactory/kit";
import { Pool } from "undici";

export interface ServerPoolOptions {
  /** Keep-alive sockets per server (the sampler's concurrency limit is the real bound). */
  connections: number;
  /** First cool-down after a failure; doubles per consecutive failure. Default 5 s. */
  cooldownMs?: number;
  /** Cap of the cool-down. Default 60 s. */
  maxCooldownMs?: number;
  /** Most sessions remembered (least recently used ones are forgotten first). Default 100,000. */
  maxSessions?: number;
}

/** One server: its base URL and the keep-alive pool that talks to it. */
export interface InferenceServer {
  /** Normalised base URL (no trailing slash, no trailing `/v1`): what results report as `server`. */
  readonly url: string;
  /** Path prefix to put before every endpoint path (`""` for a server at the root). */
  readonly basePath: string;
  readonly dispatcher: Pool;
}

/** A snapshot of one server's state, for logs and metrics. */
export type ServerStatus = EndpointStatus;

/** The sampler's servers, routed by the kit's endpoint pool; `close()` also closes their connections. */
export class ServerPool extends EndpointPool<InferenceServer> {
  constructor(urls: readonly string[], { connections, ...routing }: ServerPoolOptions) {
    super(inferenceServers(urls, connections), routing);
  }

  async close(): Promise<void> {
    this.clearSessions();
    await Promise.all(this.endpoints.map((s) => s.dispatcher.close()));
  }
}

/** One server per URL, each with its keep-alive pool; the URLs are checked and normalised first. */
function inferenceServers(urls: readonly string[], connections: number): InferenceServer[] {
  if (urls.length === 0) throw new Error("an inference client needs at least one server URL");
  const normalised = urls.map(normaliseServerUrl);
  const duplicate = normalised.find((u, i) => normalised.indexOf(u) !== i);
  if (duplicate) throw new Error(`inference server URL ${duplicate} is listed twice`);
  return normalised.map((url) => {
    const { origin, pathname } = new URL(url);
    return {
      url,
      basePath: pathname === "/" ? "" : pathname,
      // Generation can take minutes: the client's own timeout (an AbortSignal) bounds it, not undici's.
      dispatcher: new Pool(origin, { connections, headersTimeout: 0, bodyTimeout: 0 }),
    };
  });
}
