// Episodes: state an environment server holds behind server-minted handles (docs/environments.md),
// exposed to callers as opaque episode ids.
//
// An id carries everything needed to route it — the server's configured name, the server's handle and,
// for a stdio server, the generation of the process the gateway spawned — so any gateway replica routes
// any id without shared state. This gateway also keeps its own live set (TTL and idle expiry, the
// per-server limit, metrics) and a bounded memory of the ids it ended or expired.
//
// Two failures, never a fresh state:
//   * EPISODE_NOT_FOUND: the id is malformed, names no environment server, or was ended / expired;
//   * EPISODE_LOST: the episode was valid, but its server died (stdio: the process generation changed)
//     or answers that it no longer holds the handle.
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  EPISODE_CLOSE_TOOL,
  EPISODE_CREATE_TOOL,
  EPISODE_FORK_TOOL,
  EPISODE_HANDLE_ARG,
  EPISODE_LIMIT_PREFIX,
  EPISODE_SNAPSHOT_TOOL,
  STATE_TOO_LARGE_PREFIX,
  UNKNOWN_EPISODE_PREFIX,
} from "@rlfactory/proto/environment-contract";
import type { Logger } from "pino";
import { exceedsDepth } from "./argument-depth.ts";
import type { Catalog, CatalogEntry } from "./catalog.ts";
import { mergeToolPolicy, type ServerConfig, type ToolPolicy } from "./config.ts";
import { GatewayError, shortMessage, toGatewayError, truncate } from "./errors.ts";
import { type Instance, InstancePool, substituteWorkdir } from "./instance-pool.ts";
import type { Upstream } from "./upstream.ts";

const tracer = trace.getTracer("rlfactory-gateway");
const ID_PREFIX = "ep1.";
/** Ids ended, expired or lost on this gateway, answered without asking the server (the oldest forgotten first). */
const ENDED_MEMORY = 65_536;
/** The longest episode id accepted (longer ones are EPISODE_NOT_FOUND); the admin API's routes take it. */
export const MAX_EPISODE_ID_LENGTH = 2_048;

/** What an episode id encodes. `generation` is empty for HTTP servers (they outlive a connection). */
export interface EpisodeRef {
  server: string;
  handle: string;
  generation: string;
}

export function encodeEpisodeId(ref: EpisodeRef): string {
  const body = JSON.stringify({ s: ref.server, h: ref.handle, g: ref.generation });
  return ID_PREFIX + Buffer.from(body).toString("base64url");
}

/** The reference in an id; EPISODE_NOT_FOUND when it is not one of ours. */
export function decodeEpisodeId(id: string): EpisodeRef {
  const notFound = () => new GatewayError("EPISODE_NOT_FOUND", `unknown episode id "${truncate(id, 80)}"`);
  if (!id.startsWith(ID_PREFIX) || id.length > MAX_EPISODE_ID_LENGTH) throw notFound();
  try {
    const v = JSON.parse(Buffer.from(id.slice(ID_PREFIX.length), "base64url").toString("utf8")) as {
      s?: unknown;
      h?: unknown;
      g?: unknown;
    };
    if (typeof v.s !== "string" || typeof v.h !== "string" || typeof v.g !== "string") throw notFound();
    const ref = { server: v.s, handle: v.h, generation: v.g };
    // One id per episode: another spelling of the same reference (keys reordered, whitespace, more
    // keys, another base64 form) is not one of ours, so it can never be routed as an alias.
    if (encodeEpisodeId(ref) !== id) throw notFound();
    return ref;
  } catch {
    throw notFound();
  }
}

export type EpisodeEvent = "started" | "forked" | "ended" | "expired" | "lost";

export interface EpisodesEvents {
  episode: [server: string, event: EpisodeEvent, count: number];
}

interface LiveEpisode {
  id: string;
  /** What the id encodes (decoded once, at registration: every call on the episode needs it). */
  ref: EpisodeRef;
  server: string;
  ttlMs: number;
  /** When it became live (ms since the epoch): the admin API's episode list. */
  startedMs: number;
  idle: NodeJS.Timeout;
  ttl: NodeJS.Timeout;
  /** An EndEpisode is on its way: a second one is EPISODE_NOT_FOUND, and "unknown handle" is not a loss. */
  ending?: boolean;
  /** A per-episode-instance server's episode: its own process (instance-pool.ts). */
  instance?: Instance;
  /** `fork: replay`: the episode's successful calls of tools not annotated read-only, in order. */
  calls?: RecordedCall[];
}

/** One call to replay on a fork's fresh instance. */
interface RecordedCall {
  tool: string;
  /** The caller's arguments (without the fixed arguments, set again for the instance it replays on). */
  args: Record<string, unknown>;
  fixed: string[];
}

interface ServerEpisodes {
  config: ServerConfig;
  upstream: Upstream;
  /** The spawned process's generation (stdio only; empty while it is not ready, and for HTTP servers). */
  generation: string;
  live: Map<string, LiveEpisode>;
  /** Room held for episodes being started or forked (counted against max_live until they are live). */
  reserved: number;
  /** Set for a server run as one process per episode (`episodes: {isolate: process}`). */
  pool?: InstancePool;
}

export class Episodes extends EventEmitter<EpisodesEvents> {
  #servers = new Map<string, ServerEpisodes>();
  #ended = new Map<string, "EPISODE_NOT_FOUND" | "EPISODE_LOST">();
  /** Every server's live episodes by id (the per-server maps, joined: one lookup per call). */
  #live = new Map<string, LiveEpisode>();
  #catalog: Catalog;
  #log: Logger | undefined;

  constructor(
    servers: readonly ServerConfig[],
    upstreams: readonly Upstream[],
    catalog: Catalog,
    log?: Logger,
  ) {
    super();
    this.#catalog = catalog;
    this.#log = log?.child({ component: "episodes" });
    for (const config of servers) {
      const upstream = upstreams.find((u) => u.name === config.name);
      if (!upstream) continue;
      const s: ServerEpisodes = { config, upstream, generation: "", live: new Map(), reserved: 0 };
      if (upstream instanceof InstancePool) s.pool = upstream;
      this.#servers.set(config.name, s);
      if (config.transport.kind !== "stdio" || s.pool) continue;
      // A stdio server is this gateway's child: when it goes, every episode it held goes with it.
      upstream.on("state", (state) => {
        if (state === "ready") {
          s.generation = randomUUID().slice(0, 8);
          return;
        }
        if (s.generation === "") return;
        s.generation = "";
        const lost = [...s.live.values()];
        for (const e of lost) this.#forget(e);
        for (const e of lost) this.#remember(e.id, "EPISODE_LOST");
        if (lost.length > 0) {
          this.emit("episode", config.name, "lost", lost.length);
          this.#log?.warn(
            { server: config.name, lost: lost.length },
            "environment server gone: episodes lost",
          );
        }
      });
    }
  }

  /** Live episodes per server, for the metrics gauge. */
  liveCounts(): Map<string, number> {
    return new Map([...this.#servers].map(([name, s]) => [name, s.live.size]));
  }

  /** Each environment server's live episodes, oldest first (`GET /v1/episodes`, read-only). */
  list(): { server: string; episodes: { episode_id: string; started_ms: number; ttl_ms: number }[] }[] {
    return [...this.#servers].map(([server, s]) => ({
      server,
      episodes: [...s.live.values()]
        .sort((a, b) => a.startedMs - b.startedMs)
        .map((e) => ({ episode_id: e.id, started_ms: e.startedMs, ttl_ms: e.ttlMs })),
    }));
  }

  /**
   * A new episode on `server`. `config` is the caller's JSON text (gRPC `config_json`), or a value the
   * caller's transport already parsed (the HTTP body), which gets the same checks.
   */
  async start(
    server: string,
    config: string | { value: unknown },
    ttlMs: number,
    ctx: Context,
  ): Promise<string> {
    return this.#span("start", ctx, { "rlf.server": server }, async (span) => {
      const s = this.#servers.get(server);
      if (s && s.upstream.state !== "ready")
        throw new GatewayError(
          "UNAVAILABLE",
          `environment server "${server}" is ${s.upstream.state}; ${s.upstream.detail}`.trim(),
        );
      if (s?.pool) return this.#startInstance(s, s.pool, config, ttlMs, span);
      if (!s || !this.#catalog.isEnvironment(server)) {
        throw new GatewayError(
          "EPISODE_NOT_FOUND",
          s
            ? `server "${truncate(server)}" is not an environment server (it lists no ${EPISODE_CREATE_TOOL} tool)`
            : `no server named "${truncate(server)}"`,
        );
      }
      const policy = mergeToolPolicy(s.config.toolPolicy, s.config.toolOverrides[EPISODE_CREATE_TOOL]);
      const checked =
        typeof config === "string" ? parseConfig(config, policy) : checkConfig(config.value, policy);
      const ttl = this.#ttl(s, ttlMs);
      const release = this.#reserveRoom(s, 1);
      let id: string;
      try {
        const structured = await this.#reserved(s, EPISODE_CREATE_TOOL, { config: checked }, undefined);
        const handle = structured[EPISODE_HANDLE_ARG];
        if (typeof handle !== "string" || handle === "")
          throw new GatewayError(
            "UPSTREAM_ERROR",
            `${server}: ${EPISODE_CREATE_TOOL} returned no episode handle`,
          );
        id = this.#register(s, handle, ttl);
      } finally {
        release();
      }
      span.setAttribute("rlf.episode_id", id);
      this.emit("episode", server, "started", 1);
      return id;
    });
  }

  async fork(id: string, count: number, ctx: Context): Promise<string[]> {
    return this.#span("fork", ctx, { "rlf.episode_id": id }, async () => {
      if (!Number.isInteger(count) || count < 1)
        throw new GatewayError("INVALID_ARGUMENTS", `fork count must be 1 or more (got ${count})`);
      const { s, ref, live } = this.#resolve(id);
      if (s.pool && live) return this.#forkInstance(s, s.pool, live, count);
      const release = this.#reserveRoom(s, count);
      let ids: string[];
      try {
        const structured = await this.#reserved(
          s,
          EPISODE_FORK_TOOL,
          { [EPISODE_HANDLE_ARG]: ref.handle, count },
          id,
        );
        const handles = structured.episodes;
        if (
          !Array.isArray(handles) ||
          handles.length !== count ||
          !handles.every((h) => typeof h === "string")
        )
          throw new GatewayError(
            "UPSTREAM_ERROR",
            `${s.config.name}: ${EPISODE_FORK_TOOL} did not return ${count} handles`,
          );
        const ttl = live?.ttlMs ?? s.config.upstream.episodes.maxTtlMs;
        ids = (handles as string[]).map((h) => this.#register(s, h, ttl));
      } finally {
        release();
      }
      this.emit("episode", s.config.name, "forked", count);
      return ids;
    });
  }

  async snapshot(id: string, ctx: Context): Promise<string> {
    return this.#span("snapshot", ctx, { "rlf.episode_id": id }, async () => {
      const { s, ref, live } = this.#resolve(id);
      let state: string;
      if (s.pool && live?.instance) {
        state = await this.#instanceState(s, live.instance);
      } else {
        const structured = await this.#reserved(
          s,
          EPISODE_SNAPSHOT_TOOL,
          { [EPISODE_HANDLE_ARG]: ref.handle },
          id,
        );
        state = JSON.stringify(structured.state ?? null);
      }
      this.touch(id);
      const limit = episodeStateLimit(s.config);
      const bytes = Buffer.byteLength(state, "utf8");
      if (bytes > limit)
        throw new GatewayError(
          "OUTPUT_TOO_LARGE",
          `${s.config.name}__${EPISODE_SNAPSHOT_TOOL}: the episode's state is ${bytes} bytes; the limit is ${limit} (tools.${EPISODE_SNAPSHOT_TOOL}.max_output_bytes)`,
        );
      return state;
    });
  }

  async end(id: string, ctx: Context): Promise<string> {
    return this.#span("end", ctx, { "rlf.episode_id": id }, async () => {
      const { s, ref, live } = this.#resolve(id);
      if (live?.ending) throw endedError(id);
      if (live) live.ending = true;
      if (s.pool && live?.instance) return this.#endInstance(s, s.pool, live, live.instance);
      let structured: Record<string, unknown>;
      try {
        structured = await this.#reserved(
          s,
          EPISODE_CLOSE_TOOL,
          { [EPISODE_HANDLE_ARG]: ref.handle },
          id,
          true,
        );
      } catch (err) {
        // not ended (a timeout, the server unreachable): the caller may try again
        if (live) live.ending = false;
        throw err;
      }
      if (live) this.#forget(live);
      this.#remember(id, "EPISODE_NOT_FOUND");
      this.emit("episode", s.config.name, "ended", 1);
      return JSON.stringify(structured.state ?? null);
    });
  }

  /**
   * The server handle for a call of `server`'s stateful tool on episode `id`; throws EPISODE_NOT_FOUND /
   * EPISODE_LOST when the call must not reach the server.
   */
  handleFor(id: string, server: string): string {
    const { ref } = this.#resolve(id);
    if (ref.server !== server) {
      throw new GatewayError(
        "INVALID_ARGUMENTS",
        `episode ${truncate(id, 80)} belongs to server "${ref.server}", not "${server}"`,
      );
    }
    return ref.handle;
  }

  /** The server an episode id names (whether or not the episode is live); undefined for a malformed id. */
  serverOf(id: string): string | undefined {
    return safeDecode(id)?.server;
  }

  /** `server` runs one process per episode: its calls go to the episode's instance (instanceFor). */
  isolated(server: string): boolean {
    return this.#servers.get(server)?.pool !== undefined;
  }

  /**
   * Where a call of a per-episode-instance server's tool on episode `id` goes: the episode's instance,
   * with the server's fixed arguments the tool takes set (`{workdir}` replaced).
   */
  instanceCall(
    id: string,
    entry: CatalogEntry,
    args: Record<string, unknown>,
  ): { upstream: Upstream; args: Record<string, unknown> } {
    const { ref, live, s } = this.#resolve(id);
    if (ref.server !== entry.server)
      throw new GatewayError(
        "INVALID_ARGUMENTS",
        `episode ${truncate(id, 80)} belongs to server "${ref.server}", not "${entry.server}"`,
      );
    if (!live?.instance || live.ending) throw endedError(id);
    return {
      upstream: live.instance.upstream,
      args: { ...args, ...fixedArguments(s, entry.fixed, live.instance) },
    };
  }

  /**
   * A call on episode `id` succeeded: under `fork: replay`, recorded for forks unless the tool is
   * annotated read-only (or is the snapshot tool).
   */
  record(id: string, entry: CatalogEntry, args: Record<string, unknown>, result: CallToolResult): void {
    const live = this.#live.get(id);
    if (!live?.calls || result.isError) return;
    const s = this.#servers.get(live.server);
    if (entry.tool.annotations?.readOnlyHint === true) return;
    if (entry.upstreamName === s?.config.isolation?.snapshot?.tool) return;
    live.calls.push({ tool: entry.upstreamName, args, fixed: entry.fixed });
  }

  /** An operation on `id` happened: its idle timer starts again. */
  touch(id: string): void {
    this.#live.get(id)?.idle.refresh();
  }

  /** A tool error that says the server no longer holds the episode, as the call's failure; else nothing. */
  checkResult(id: string, result: CallToolResult, closing = false): void {
    if (result.isError && firstText(result).startsWith(UNKNOWN_EPISODE_PREFIX))
      throw this.#unknownHandle(id, closing);
  }

  close(): void {
    for (const s of this.#servers.values()) for (const e of [...s.live.values()]) this.#forget(e);
  }

  #resolve(id: string): { s: ServerEpisodes; ref: EpisodeRef; live: LiveEpisode | undefined } {
    const ref = this.#live.get(id)?.ref ?? decodeEpisodeId(id);
    const s = this.#servers.get(ref.server);
    const gone = this.#ended.get(id);
    if (gone === "EPISODE_LOST") throw lostError(id, ref.server);
    if (!s || gone) throw endedError(id);
    // A per-episode instance lives on this gateway only, while the episode is live.
    if (s.pool) {
      if (!s.live.has(id)) throw endedError(id);
    } else if (s.config.transport.kind === "stdio" && ref.generation !== s.generation)
      throw lostError(id, ref.server);
    return { s, ref, live: s.live.get(id) };
  }

  /**
   * The server does not know the handle: LOST when this gateway had it live, else NOT_FOUND. An
   * episode being ended is not lost when another operation finds its handle gone (`closing`: the
   * answer to the EndEpisode itself, where it is).
   */
  #unknownHandle(id: string, closing: boolean): GatewayError {
    const ref = this.#live.get(id)?.ref ?? safeDecode(id);
    const s = ref ? this.#servers.get(ref.server) : undefined;
    const live = s?.live.get(id);
    if (s && live && (closing || !live.ending)) {
      this.#forget(live);
      this.#remember(id, "EPISODE_LOST");
      this.emit("episode", s.config.name, "lost", 1);
      return lostError(id, s.config.name);
    }
    return endedError(id);
  }

  // ---- per-episode instances (a server entry's `episodes: {isolate: process}`) ----------------------

  async #startInstance(
    s: ServerEpisodes,
    pool: InstancePool,
    config: string | { value: unknown },
    ttlMs: number,
    span: Span,
  ): Promise<string> {
    // The config is held to the usual limits; the server has no episode_create to give it to.
    const policy = mergeToolPolicy(s.config.toolPolicy, s.config.toolOverrides[EPISODE_CREATE_TOOL]);
    if (typeof config === "string") parseConfig(config, policy);
    else checkConfig(config.value, policy);
    const ttl = this.#ttl(s, ttlMs);
    const release = this.#reserveRoom(s, 1);
    let id: string;
    try {
      id = this.#registerInstance(s, await pool.acquire(), ttl, []);
    } finally {
      release();
    }
    span.setAttribute("rlf.episode_id", id);
    this.emit("episode", s.config.name, "started", 1);
    return id;
  }

  /**
   * `fork: replay`: `count` fresh instances, each given the parent's recorded calls in order (the
   * copies start with the parent's record). `fork: refuse`: UNSUPPORTED.
   */
  async #forkInstance(s: ServerEpisodes, pool: InstancePool, parent: LiveEpisode, count: number) {
    if (pool.isolation.fork === "refuse")
      throw new GatewayError(
        "UNSUPPORTED",
        `server "${s.config.name}" runs one process per episode and cannot fork (episodes.fork is refuse)`,
      );
    const calls = [...(parent.calls ?? [])];
    const release = this.#reserveRoom(s, count);
    let ids: string[];
    try {
      const copies = await Promise.allSettled(
        Array.from({ length: count }, async () => {
          const instance = await pool.acquire();
          try {
            await this.#replay(s, instance, calls);
          } catch (err) {
            await pool.release(instance);
            throw err;
          }
          return instance;
        }),
      );
      const failed = copies.find((c) => c.status === "rejected");
      if (failed) {
        await Promise.all(copies.map((c) => (c.status === "fulfilled" ? pool.release(c.value) : undefined)));
        throw failed.reason;
      }
      this.touch(parent.id);
      ids = copies.map((c) =>
        this.#registerInstance(s, (c as PromiseFulfilledResult<Instance>).value, parent.ttlMs, calls),
      );
    } finally {
      release();
    }
    this.emit("episode", s.config.name, "forked", count);
    return ids;
  }

  /** The recorded calls, one after another, on a fresh instance; any failure fails the fork. */
  async #replay(s: ServerEpisodes, instance: Instance, calls: readonly RecordedCall[]): Promise<void> {
    for (const [i, call] of calls.entries()) {
      const context = `${s.config.name}__${call.tool} (fork replay, call ${i + 1} of ${calls.length})`;
      const args = { ...call.args, ...fixedArguments(s, call.fixed, instance) };
      const result = await this.#instanceCall(instance, call.tool, args, s, context);
      if (result.isError)
        throw new GatewayError(
          "UPSTREAM_ERROR",
          `${context}: the replayed call answered a tool error: ${shortMessage(firstText(result)) || "tool error"}`,
        );
    }
  }

  /** The snapshot tool's result as the state (JSON text); UNSUPPORTED without a snapshot tool. */
  async #instanceState(s: ServerEpisodes, instance: Instance): Promise<string> {
    const snapshot = s.config.isolation?.snapshot;
    if (!snapshot)
      throw new GatewayError(
        "UNSUPPORTED",
        `server "${s.config.name}" has no snapshot tool (episodes.snapshot.tool)`,
      );
    const context = `${s.config.name}__${snapshot.tool} (snapshot)`;
    const args = substituteWorkdir(snapshot.arguments, instance.workdir) as Record<string, unknown>;
    const result = await this.#instanceCall(instance, snapshot.tool, args, s, context);
    if (result.isError)
      throw new GatewayError(
        "UPSTREAM_ERROR",
        `${context}: ${shortMessage(firstText(result)) || "tool error"}`,
      );
    return JSON.stringify(stateOf(result));
  }

  /** Ends the episode: the final state (with a snapshot tool), then the process killed, awaited. */
  async #endInstance(s: ServerEpisodes, pool: InstancePool, live: LiveEpisode, instance: Instance) {
    let state = "null";
    let failure: unknown;
    if (s.config.isolation?.snapshot) {
      try {
        state = await this.#instanceState(s, instance);
      } catch (err) {
        failure = err;
      }
    }
    instance.onLost = undefined;
    this.#forget(live);
    this.#remember(live.id, "EPISODE_NOT_FOUND");
    this.emit("episode", s.config.name, "ended", 1);
    await pool.release(instance);
    // Ended all the same: the caller learns the final state could not be taken.
    if (failure) throw failure;
    return state;
  }

  async #instanceCall(
    instance: Instance,
    tool: string,
    args: Record<string, unknown>,
    s: ServerEpisodes,
    context: string,
  ): Promise<CallToolResult> {
    return callWithinDeadline(instance.upstream, tool, args, s, context);
  }

  #registerInstance(s: ServerEpisodes, instance: Instance, ttlMs: number, calls: RecordedCall[]): string {
    const id = this.#register(s, instance.id, ttlMs);
    const live = s.live.get(id) as LiveEpisode;
    live.instance = instance;
    if (s.config.isolation?.fork === "replay") live.calls = [...calls];
    instance.onLost = () => {
      if (s.live.get(id) !== live) return;
      this.#forget(live);
      this.#remember(id, "EPISODE_LOST");
      this.emit("episode", s.config.name, "lost", 1);
      this.#log?.warn({ server: s.config.name, episode: id }, "per-episode instance died: episode lost");
    };
    return id;
  }

  #ttl(s: ServerEpisodes, ttlMs: number): number {
    const max = s.config.upstream.episodes.maxTtlMs;
    return ttlMs > 0 ? Math.min(ttlMs, max) : max;
  }

  /**
   * Holds room for `n` episodes against max_live before the upstream call (so concurrent starts and
   * forks cannot all pass the check and then all register); RATE_LIMITED when there is none. The
   * returned function gives the room back once the episodes are registered (or failed).
   */
  #reserveRoom(s: ServerEpisodes, n: number): () => void {
    const limit = s.config.upstream.episodes.maxLive;
    if (s.live.size + s.reserved + n > limit) {
      const pending = s.reserved > 0 ? ` (and ${s.reserved} being started)` : "";
      throw new GatewayError(
        "RATE_LIMITED",
        `server "${s.config.name}" has ${s.live.size} live episodes${pending}; the limit is ${limit} (episodes.max_live)`,
      );
    }
    s.reserved += n;
    let held = true;
    return () => {
      if (held) s.reserved -= n;
      held = false;
    };
  }

  #register(s: ServerEpisodes, handle: string, ttlMs: number): string {
    const ref = { server: s.config.name, handle, generation: s.generation };
    const id = encodeEpisodeId(ref);
    const expire = (why: string) => () => this.#expire(s, id, why);
    const idleMs = s.config.upstream.episodes.idleTimeoutMs;
    const e: LiveEpisode = {
      id,
      ref,
      server: s.config.name,
      ttlMs,
      startedMs: Date.now(),
      idle: setTimeout(expire(`idle for ${idleMs} ms`), idleMs).unref(),
      ttl: setTimeout(expire(`past its ${ttlMs} ms ttl`), ttlMs).unref(),
    };
    s.live.set(id, e);
    this.#live.set(id, e);
    return id;
  }

  #expire(s: ServerEpisodes, id: string, why: string): void {
    const e = s.live.get(id);
    if (!e) return;
    this.#forget(e);
    this.#remember(id, "EPISODE_NOT_FOUND");
    this.emit("episode", s.config.name, "expired", 1);
    this.#log?.info({ server: s.config.name, episode: id, why }, "episode expired");
    // A per-episode instance: killed, its directory removed.
    if (s.pool && e.instance) {
      void s.pool.release(e.instance);
      return;
    }
    // Free the server's state; the episode is over for callers whatever the server answers.
    const handle = e.ref.handle;
    if (s.upstream.state === "ready") {
      void s.upstream
        .callTool(
          EPISODE_CLOSE_TOOL,
          { [EPISODE_HANDLE_ARG]: handle },
          {
            signal: AbortSignal.timeout(s.config.toolPolicy.deadlineMs),
            timeoutMs: s.config.toolPolicy.deadlineMs,
          },
        )
        .catch(() => {});
    }
  }

  #forget(e: LiveEpisode): void {
    clearTimeout(e.idle);
    clearTimeout(e.ttl);
    this.#servers.get(e.server)?.live.delete(e.id);
    this.#live.delete(e.id);
  }

  #remember(id: string, code: "EPISODE_NOT_FOUND" | "EPISODE_LOST"): void {
    this.#ended.set(id, code);
    if (this.#ended.size > ENDED_MEMORY) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
  }

  /** One reserved-tool call; its structured content, or the typed failure. */
  async #reserved(
    s: ServerEpisodes,
    tool: string,
    args: Record<string, unknown>,
    id: string | undefined,
    closing = false,
  ): Promise<Record<string, unknown>> {
    const context = `${s.config.name}__${tool}`;
    const result = await callWithinDeadline(s.upstream, tool, args, s, context);
    if (id !== undefined) this.checkResult(id, result, closing);
    // The server's own live-episode limit: the same answer as this gateway's max_live.
    if (result.isError && firstText(result).startsWith(EPISODE_LIMIT_PREFIX))
      throw new GatewayError("RATE_LIMITED", `${context}: ${shortMessage(firstText(result))}`);
    // A state larger than the server sends: the same answer as this gateway's max_output_bytes.
    if (result.isError && firstText(result).startsWith(STATE_TOO_LARGE_PREFIX))
      throw new GatewayError("OUTPUT_TOO_LARGE", `${context}: ${shortMessage(firstText(result))}`);
    if (result.isError)
      throw new GatewayError(
        "UPSTREAM_ERROR",
        `${context}: ${shortMessage(firstText(result)) || "tool error"}`,
      );
    const structured = result.structuredContent;
    if (structured === undefined || structured === null || typeof structured !== "object")
      throw new GatewayError("UPSTREAM_ERROR", `${context}: no structured content in the answer`);
    return structured as Record<string, unknown>;
  }

  /** A span per episode operation: `episode start|fork|snapshot|end`. */
  async #span<T>(
    op: string,
    ctx: Context,
    attributes: Record<string, string>,
    body: (span: Span) => Promise<T>,
  ): Promise<T> {
    return tracer.startActiveSpan(
      `episode ${op}`,
      { kind: SpanKind.INTERNAL, attributes: { "rlf.episode.operation": op, ...attributes } },
      ctx,
      async (span) => {
        try {
          return await body(span);
        } catch (err) {
          const e = toGatewayError(err, `episode ${op}`);
          span.setAttribute("error.type", e.code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
          throw e;
        } finally {
          span.end();
        }
      },
    );
  }
}

/** The environment servers' own bound on a state (`maxSnapshotBytes`), the gateway's default too. */
export const EPISODE_STATE_DEFAULT_BYTES = 16 * 1024 * 1024;

/**
 * The most bytes an episode's state (SnapshotEpisode) may have: `tools.episode_snapshot.max_output_bytes`
 * when set, else the larger of the server's `max_output_bytes` and 16 MiB. A state is not what a model
 * reads, and a database environment's (τ-bench retail: 1.2 MB) is over the 1 MiB that bounds outputs.
 */
function episodeStateLimit(config: ServerConfig): number {
  const set = config.toolOverrides[EPISODE_SNAPSHOT_TOOL]?.maxOutputBytes;
  return set ?? Math.max(config.toolPolicy.maxOutputBytes, EPISODE_STATE_DEFAULT_BYTES);
}

function endedError(id: string): GatewayError {
  return new GatewayError("EPISODE_NOT_FOUND", `episode ${truncate(id, 80)} is unknown, ended or expired`);
}

function lostError(id: string, server: string): GatewayError {
  return new GatewayError(
    "EPISODE_LOST",
    `episode ${truncate(id, 80)} was lost: the environment server "${server}" died or no longer holds it`,
  );
}

/**
 * An episode config, held to the server's argument limits (its `episode_create` policy) like any tool
 * call's arguments: size first, then JSON.parse (which copes with any depth), then the nesting depth,
 * checked iteratively before anything recursive (the server's own parser) sees the value.
 */
function parseConfig(text: string, policy: ToolPolicy): Record<string, unknown> {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > policy.maxArgumentBytes)
    throw new GatewayError(
      "ARGUMENTS_TOO_LARGE",
      `config_json is ${bytes} bytes; the limit is ${policy.maxArgumentBytes} (max_argument_bytes)`,
    );
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new GatewayError("INVALID_ARGUMENTS", `config_json is not valid JSON (${(err as Error).message})`);
  }
  return checkDepth(v, policy);
}

/** An already parsed config (the HTTP body's): its depth first (iteratively), then its size as JSON. */
function checkConfig(value: unknown, policy: ToolPolicy): Record<string, unknown> {
  const config = checkDepth(value, policy);
  const bytes = Buffer.byteLength(JSON.stringify(config), "utf8");
  if (bytes > policy.maxArgumentBytes)
    throw new GatewayError(
      "ARGUMENTS_TOO_LARGE",
      `config_json is ${bytes} bytes; the limit is ${policy.maxArgumentBytes} (max_argument_bytes)`,
    );
  return config;
}

function checkDepth(v: unknown, policy: ToolPolicy): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new GatewayError("INVALID_ARGUMENTS", "config_json must be a JSON object");
  if (exceedsDepth(v, policy.maxArgumentDepth))
    throw new GatewayError(
      "INVALID_ARGUMENTS",
      `config_json nests deeper than ${policy.maxArgumentDepth} levels (max_argument_depth is ${policy.maxArgumentDepth})`,
    );
  return v as Record<string, unknown>;
}

function safeDecode(id: string): EpisodeRef | undefined {
  try {
    return decodeEpisodeId(id);
  } catch {
    return undefined;
  }
}

/** The server's fixed arguments named in `names`, for `instance` (`{workdir}` replaced). */
function fixedArguments(s: ServerEpisodes, names: readonly string[], instance: Instance) {
  const fixed = s.config.isolation?.fixedArguments ?? {};
  return Object.fromEntries(names.map((k) => [k, substituteWorkdir(fixed[k], instance.workdir)]));
}

/**
 * A snapshot tool's result as a state: its structured content, else its text (parsed when it is JSON,
 * several text blocks as a list).
 */
/** One call to an environment server (or an episode's own instance) within the server's deadline. */
async function callWithinDeadline(
  upstream: Pick<Upstream, "callTool">,
  tool: string,
  args: Record<string, unknown>,
  s: ServerEpisodes,
  context: string,
): Promise<CallToolResult> {
  const deadlineMs = Math.min(s.config.toolPolicy.deadlineMs, s.config.toolPolicy.maxDeadlineMs);
  try {
    return await upstream.callTool(tool, args, {
      signal: AbortSignal.timeout(deadlineMs),
      timeoutMs: deadlineMs,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "TimeoutError")
      throw new GatewayError("TIMEOUT", `${context}: no answer within ${deadlineMs} ms`);
    throw toGatewayError(err, context);
  }
}

function stateOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  const texts = (result.content ?? []).flatMap((c) =>
    c.type === "text" && "text" in c ? [String(c.text)] : [],
  );
  const parsed = texts.map((t) => {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return t;
    }
  });
  return parsed.length === 1 ? parsed[0] : parsed;
}

function firstText(result: CallToolResult): string {
  const block = result.content?.find((c) => c.type === "text");
  return block && "text" in block ? String(block.text) : "";
}
