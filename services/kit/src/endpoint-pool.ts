// The endpoints behind one client (inference servers, judge model servers): where each attempt goes,
// and which endpoints are out. It only decides; the caller sends, and reports back.
//
// Routing, in order:
//   1. an attempt with a `sessionId` goes to the endpoint its session is pinned to, while that endpoint
//      is healthy and not one this request already tried (a model server's prefix cache holds the
//      conversation);
//   2. otherwise the least-loaded healthy endpoint (fewest attempts in flight; ties rotate), avoiding the
//      endpoints this request already tried when another one is healthy; the session is re-pinned to it;
//   3. when every endpoint is ejected, the one whose cool-down ends first, preferring one not yet tried
//      (an attempt is never refused for lack of a healthy endpoint: it fails on the endpoint instead,
//      with that endpoint's own error).
// An endpoint reported `failed` is ejected for a cool-down that doubles with each consecutive failure
// (capped); once the cool-down ends it is chosen again, and its next success resets the count.
// Sessions live in a bounded LRU map.

/** What the pool needs of an endpoint: a URL naming it (unique within the pool). */
export interface PoolEndpoint {
  readonly url: string;
}

export interface EndpointPoolOptions {
  /** First cool-down after a failure; doubles per consecutive failure. Default 5 s. */
  cooldownMs?: number;
  /** Cap of the cool-down. Default 60 s. */
  maxCooldownMs?: number;
  /** Most sessions remembered (least recently used ones are forgotten first). Default 100,000. */
  maxSessions?: number;
  /** The clock, epoch ms (tests inject one). Default `Date.now`. */
  now?: () => number;
}

/** A snapshot of one endpoint's state, for logs, readiness and metrics. */
export interface EndpointStatus {
  url: string;
  inFlight: number;
  healthy: boolean;
  /** Milliseconds left of its cool-down (0 when healthy). */
  ejectedForMs: number;
  consecutiveFailures: number;
}

interface EndpointState {
  inFlight: number;
  consecutiveFailures: number;
  /** Epoch ms until which the endpoint is ejected (0: healthy). */
  downUntil: number;
}

export const ENDPOINT_POOL_DEFAULTS = {
  cooldownMs: 5_000,
  maxCooldownMs: 60_000,
  maxSessions: 100_000,
} as const;

export class EndpointPool<E extends PoolEndpoint> {
  readonly endpoints: readonly E[];
  readonly #state = new Map<E, EndpointState>();
  readonly #sessions = new Map<string, E>();
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  readonly #maxSessions: number;
  readonly #now: () => number;
  /** Rotates the starting point of the least-loaded scan so ties spread evenly. */
  #rotation = 0;

  constructor(endpoints: readonly E[], options: EndpointPoolOptions = {}) {
    if (endpoints.length === 0) throw new Error("an endpoint pool needs at least one endpoint");
    const duplicate = endpoints.find((e, i) => endpoints.findIndex((o) => o.url === e.url) !== i);
    if (duplicate) throw new Error(`endpoint ${duplicate.url} is listed twice`);
    this.endpoints = [...endpoints];
    this.#cooldownMs = options.cooldownMs ?? ENDPOINT_POOL_DEFAULTS.cooldownMs;
    this.#maxCooldownMs = Math.max(
      this.#cooldownMs,
      options.maxCooldownMs ?? ENDPOINT_POOL_DEFAULTS.maxCooldownMs,
    );
    this.#maxSessions = options.maxSessions ?? ENDPOINT_POOL_DEFAULTS.maxSessions;
    this.#now = options.now ?? Date.now;
    for (const e of this.endpoints) this.#state.set(e, { inFlight: 0, consecutiveFailures: 0, downUntil: 0 });
  }

  /** Chooses the endpoint for one attempt (see the header for the rules); `avoid` holds URLs already tried. */
  pick(sessionId: string | undefined, avoid: ReadonlySet<string> = new Set()): E {
    const now = this.#now();
    const healthy = (e: E) => this.#of(e).downUntil <= now;
    if (sessionId !== undefined) {
      const pinned = this.#sessions.get(sessionId);
      if (pinned && healthy(pinned) && !avoid.has(pinned.url)) {
        this.#pin(sessionId, pinned);
        return pinned;
      }
    }
    let candidates = this.endpoints.filter((e) => healthy(e) && !avoid.has(e.url));
    if (candidates.length === 0) candidates = this.endpoints.filter(healthy);
    const chosen = candidates.length > 0 ? this.#leastLoaded(candidates) : this.#firstBack(avoid, now);
    if (sessionId !== undefined) this.#pin(sessionId, chosen);
    return chosen;
  }

  /** Counts an attempt in flight on `endpoint` until `end` is called. */
  begin(endpoint: E): void {
    this.#of(endpoint).inFlight++;
  }

  end(endpoint: E): void {
    this.#of(endpoint).inFlight--;
  }

  /** The endpoint answered: it is healthy again. */
  succeeded(endpoint: E): void {
    const s = this.#of(endpoint);
    s.consecutiveFailures = 0;
    s.downUntil = 0;
  }

  /** The endpoint failed (unreachable, or an answer saying it is broken): eject it for a cool-down. */
  failed(endpoint: E): void {
    const s = this.#of(endpoint);
    s.consecutiveFailures++;
    const cooldown = Math.min(this.#maxCooldownMs, this.#cooldownMs * 2 ** (s.consecutiveFailures - 1));
    s.downUntil = this.#now() + cooldown;
  }

  status(): EndpointStatus[] {
    const now = this.#now();
    return this.endpoints.map((e) => {
      const s = this.#of(e);
      return {
        url: e.url,
        inFlight: s.inFlight,
        healthy: s.downUntil <= now,
        ejectedForMs: Math.max(0, s.downUntil - now),
        consecutiveFailures: s.consecutiveFailures,
      };
    });
  }

  /** Attempts in flight per endpoint URL. */
  inFlight(): Record<string, number> {
    return Object.fromEntries(this.endpoints.map((e) => [e.url, this.#of(e).inFlight]));
  }

  /** Number of sessions currently pinned. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The URL of the endpoint a session is pinned to, if any (does not refresh its LRU position). */
  sessionEndpoint(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.url;
  }

  /** Forgets every session. */
  clearSessions(): void {
    this.#sessions.clear();
  }

  #leastLoaded(candidates: readonly E[]): E {
    const start = this.#rotation++ % candidates.length;
    let best = candidates[start] as E;
    for (let i = 1; i < candidates.length; i++) {
      const e = candidates[(start + i) % candidates.length] as E;
      if (this.#of(e).inFlight < this.#of(best).inFlight) best = e;
    }
    return best;
  }

  /** Every endpoint is ejected: the one back soonest, preferring one this request has not tried. */
  #firstBack(avoid: ReadonlySet<string>, now: number): E {
    const untried = this.endpoints.filter((e) => !avoid.has(e.url));
    const pool = untried.length > 0 ? untried : this.endpoints;
    const back = (e: E) => Math.max(this.#of(e).downUntil, now);
    return pool.reduce((a, b) => (back(b) < back(a) ? b : a));
  }

  /** Pins a session (most recently used last; the oldest is forgotten beyond the cap). */
  #pin(sessionId: string, endpoint: E): void {
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, endpoint);
    if (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (!oldest.done) this.#sessions.delete(oldest.value);
    }
  }

  #of(endpoint: E): EndpointState {
    const s = this.#state.get(endpoint);
    if (!s) throw new Error(`endpoint ${endpoint.url} is not in this pool`);
    return s;
  }
}
