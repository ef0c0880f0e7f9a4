// The inference servers behind one sampler: where each request goes, and which servers are out.
//
// Routing, in order:
//   1. a request with a `sessionId` goes to the server its session is pinned to, while that server is
//      healthy and not one this request already failed on (the server's prefix cache holds the
//      conversation);
//   2. otherwise the least-loaded healthy server (fewest requests in flight; ties rotate), avoiding the
//      servers this request already tried when another one is healthy; the session is re-pinned to it;
//   3. when every server is ejected, the one whose cool-down ends first (a request is never refused
//      for lack of a healthy server: it fails on the server instead, with that server's error).
// A server that fails with a connection error or a 5xx is ejected for a cool-down that doubles with each
// consecutive failure (capped); its next success resets it. Sessions live in a bounded LRU map.
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
export interface ServerStatus {
  url: string;
  inFlight: number;
  healthy: boolean;
  /** Milliseconds left of its cool-down (0 when healthy). */
  ejectedForMs: number;
  consecutiveFailures: number;
}

interface ServerEntry extends InferenceServer {
  inFlight: number;
  consecutiveFailures: number;
  /** Epoch ms until which the server is ejected (0: healthy). */
  downUntil: number;
}

/**
 * Normalises a server's base URL: `http(s)://host:port[/prefix]`, without a trailing slash or a
 * trailing `/v1` (OpenAI-style base URLs end in `/v1`; the clients add `/v1/...` themselves).
 */
export function normaliseServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`inference server URL ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`inference server URL ${JSON.stringify(raw)} must be http:// or https://`);
  }
  if (url.search || url.hash) {
    throw new Error(`inference server URL ${JSON.stringify(raw)} must not have a query or fragment`);
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
  return `${url.origin}${path}`;
}

export class ServerPool {
  readonly #servers: ServerEntry[];
  readonly #sessions = new Map<string, ServerEntry>();
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  readonly #maxSessions: number;
  /** Rotates the starting point of the least-loaded scan so ties spread evenly. */
  #rotation = 0;

  constructor(urls: readonly string[], options: ServerPoolOptions) {
    if (urls.length === 0) throw new Error("an inference client needs at least one server URL");
    const normalised = urls.map(normaliseServerUrl);
    const duplicate = normalised.find((u, i) => normalised.indexOf(u) !== i);
    if (duplicate) throw new Error(`inference server URL ${duplicate} is listed twice`);
    this.#cooldownMs = options.cooldownMs ?? 5_000;
    this.#maxCooldownMs = Math.max(this.#cooldownMs, options.maxCooldownMs ?? 60_000);
    this.#maxSessions = options.maxSessions ?? 100_000;
    this.#servers = normalised.map((url) => {
      const { origin, pathname } = new URL(url);
      return {
        url,
        basePath: pathname === "/" ? "" : pathname,
        // Generation can take minutes: the client's own timeout (an AbortSignal) bounds it, not undici's.
        dispatcher: new Pool(origin, { connections: options.connections, headersTimeout: 0, bodyTimeout: 0 }),
        inFlight: 0,
        consecutiveFailures: 0,
        downUntil: 0,
      };
    });
  }

  /** Chooses the server for one attempt of a request (see the header for the rules). */
  pick(sessionId: string | undefined, avoid: ReadonlySet<string> = new Set()): InferenceServer {
    const now = Date.now();
    const healthy = (s: ServerEntry) => s.downUntil <= now;
    if (sessionId !== undefined) {
      const pinned = this.#sessions.get(sessionId);
      if (pinned && healthy(pinned) && !avoid.has(pinned.url)) {
        this.#pin(sessionId, pinned);
        return pinned;
      }
    }
    let candidates = this.#servers.filter((s) => healthy(s) && !avoid.has(s.url));
    if (candidates.length === 0) candidates = this.#servers.filter(healthy);
    const chosen =
      candidates.length > 0 ? this.#leastLoaded(candidates) : this.#firstBack(this.#servers, avoid, now);
    if (sessionId !== undefined) this.#pin(sessionId, chosen);
    return chosen;
  }

  /** Counts a request in flight on `server` until `end` is called. */
  begin(server: InferenceServer): void {
    this.#entry(server).inFlight++;
  }

  end(server: InferenceServer): void {
    this.#entry(server).inFlight--;
  }

  /** The server answered: it is healthy again. */
  succeeded(server: InferenceServer): void {
    const s = this.#entry(server);
    s.consecutiveFailures = 0;
    s.downUntil = 0;
  }

  /** The server failed (connection error or 5xx): eject it for a cool-down. */
  failed(server: InferenceServer): void {
    const s = this.#entry(server);
    s.consecutiveFailures++;
    const cooldown = Math.min(this.#maxCooldownMs, this.#cooldownMs * 2 ** (s.consecutiveFailures - 1));
    s.downUntil = Date.now() + cooldown;
  }

  status(): ServerStatus[] {
    const now = Date.now();
    return this.#servers.map((s) => ({
      url: s.url,
      inFlight: s.inFlight,
      healthy: s.downUntil <= now,
      ejectedForMs: Math.max(0, s.downUntil - now),
      consecutiveFailures: s.consecutiveFailures,
    }));
  }

  /** Number of sessions currently pinned. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The server a session is pinned to, if any (does not refresh its LRU position). */
  sessionServer(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.url;
  }

  async close(): Promise<void> {
    this.#sessions.clear();
    await Promise.all(this.#servers.map((s) => s.dispatcher.close()));
  }

  #leastLoaded(candidates: readonly ServerEntry[]): ServerEntry {
    const start = this.#rotation++ % candidates.length;
    let best = candidates[start]!;
    for (let i = 1; i < candidates.length; i++) {
      const s = candidates[(start + i) % candidates.length]!;
      if (s.inFlight < best.inFlight) best = s;
    }
    return best;
  }

  /** Every server is ejected: the one back soonest, preferring one this request has not tried. */
  #firstBack(servers: readonly ServerEntry[], avoid: ReadonlySet<string>, now: number): ServerEntry {
    const untried = servers.filter((s) => !avoid.has(s.url));
    const pool = untried.length > 0 ? untried : servers;
    return pool.reduce((a, b) => (Math.max(b.downUntil, now) < Math.max(a.downUntil, now) ? b : a));
  }

  /** Pins a session (most recently used last; the oldest is forgotten beyond the cap). */
  #pin(sessionId: string, server: ServerEntry): void {
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, server);
    if (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (!oldest.done) this.#sessions.delete(oldest.value);
    }
  }

  #entry(server: InferenceServer): ServerEntry {
    const s = this.#servers.find((e) => e === server);
    if (!s) throw new Error(`server ${server.url} is not in this pool`);
    return s;
  }
}
