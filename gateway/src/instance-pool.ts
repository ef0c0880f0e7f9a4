// Per-episode instances of a stdio MCP server that keeps state but knows nothing of episodes (a server
// entry with `episodes: {isolate: process}`, docs/environments.md#any-stateful-mcp-server-per-episode-instances).
//
// The pool stands for the server in the gateway (it is the server's Upstream: its tool list feeds the
// catalog, its state /readyz) and holds its processes: `warm` idle instances started ahead of need, and
// the instances episodes hold. Each instance is one McpUpstream of its own, spawned from the entry's
// command with `{workdir}` replaced by the instance's own directory (fresh and empty, or holding a copy
// of a file or directory). An instance serves one episode and dies with it: released instances are
// killed and their directory removed, never handed out again. An instance whose process dies on its
// own is never respawned (a fresh process would be a fresh state): its episode is lost.
//
// The first instance negotiates the protocol; the others adopt its verdict (no probe per instance).
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import type { Logger } from "pino";
import { type Isolation, type ServerConfig, WORKDIR_PLACEHOLDER } from "./config.ts";
import { GatewayError } from "./errors.ts";
import { McpUpstream, type Negotiated, type Upstream, type UpstreamState } from "./upstream.ts";

/** One process of the server, for one episode. */
export interface Instance {
  readonly id: string;
  readonly upstream: McpUpstream;
  /** The instance's own directory (`{workdir}`), removed when the instance ends. */
  readonly workdir: string | undefined;
  readonly pid: number | undefined;
  /** Called once if the process goes away on its own while an episode holds the instance. */
  onLost: (() => void) | undefined;
}

interface Tracked extends Instance {
  /** Released or lost: it is on its way out, and nothing about it is news any more. */
  done: boolean;
}

export class InstancePool extends EventEmitter implements Upstream {
  readonly name: string;
  readonly isolation: Isolation;
  #config: ServerConfig;
  #log: Logger;
  #state: UpstreamState = "connecting";
  #detail = "";
  #tools: readonly Tool[] = [];
  #idle: Tracked[] = [];
  #busy = new Set<Tracked>();
  /** Instances being started: for the warm pool, and for acquisitions that found none idle. */
  #warming = 0;
  #direct = 0;
  /** Acquisitions waiting for a warm instance being started (pool.max reached meanwhile). */
  #waiters: { resolve: (i: Tracked) => void; reject: (err: unknown) => void }[] = [];
  #adopt: Negotiated | undefined;
  #failures = 0;
  /** The last started instance's connection detail (its protocol), for /readyz. */
  #instanceDetail = "";
  #retry: NodeJS.Timeout | undefined;

  constructor(config: ServerConfig, log: Logger) {
    super();
    if (!config.isolation || config.transport.kind !== "stdio")
      throw new Error(`server ${config.name}: an instance pool needs a stdio server with episodes.isolate`);
    this.name = config.name;
    this.isolation = config.isolation;
    this.#config = config;
    this.#log = log.child({ upstream: config.name, component: "instance-pool" });
  }

  get state(): UpstreamState {
    return this.#state;
  }
  get detail(): string {
    return this.#detail;
  }
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Instances now: idle (warm), held by episodes, and being started. */
  counts(): { idle: number; busy: number; starting: number } {
    return { idle: this.#idle.length, busy: this.#busy.size, starting: this.#warming + this.#direct };
  }

  /**
   * The first instance (for the tool list), then the warm pool in the background. Resolves once the
   * first instance is ready or failed (then retried with the entry's reconnect backoff).
   */
  async start(): Promise<void> {
    try {
      const first = await this.#spawn("warm");
      this.#ready();
      if (this.isolation.warm > 0) this.#idle.push(first);
      else await this.#end(first);
    } catch (err) {
      this.#failed(err);
      return;
    }
    this.#refill();
  }

  /** A call without an episode: every call of this server runs in an episode's own instance. */
  async callTool(name: string): Promise<CallToolResult> {
    throw new GatewayError(
      "INVALID_ARGUMENTS",
      `${this.name}__${name}: server "${this.name}" runs one process per episode: the call needs an episode_id (StartEpisode)`,
    );
  }

  /**
   * An instance for a new episode: a warm one, else one started now, else (at pool.max) the next warm
   * one being started; RATE_LIMITED when none is.
   */
  async acquire(): Promise<Instance> {
    if (this.#state === "closed") throw new GatewayError("UNAVAILABLE", `server "${this.name}" is closed`);
    const warm = this.#idle.shift();
    if (warm) {
      this.#busy.add(warm);
      this.#refill();
      return warm;
    }
    if (this.#total() >= this.isolation.max && this.#warming > this.#waiters.length)
      return new Promise<Tracked>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    if (this.#total() >= this.isolation.max)
      throw new GatewayError(
        "RATE_LIMITED",
        `server "${this.name}" runs ${this.#total()} instances; the limit is ${this.isolation.max} (episodes.pool.max)`,
      );
    const instance = await this.#spawn("direct");
    if ((this.#state as UpstreamState) === "closed") {
      await this.#end(instance);
      throw new GatewayError("UNAVAILABLE", `server "${this.name}" is closed`);
    }
    this.#busy.add(instance);
    this.#refill();
    return instance;
  }

  /** Ends an episode's instance: its process killed (awaited), its directory removed. */
  async release(instance: Instance): Promise<void> {
    const tracked = instance as Tracked;
    this.#busy.delete(tracked);
    await this.#end(tracked);
    this.#refill();
  }

  async close(): Promise<void> {
    this.#setState("closed");
    clearTimeout(this.#retry);
    for (const w of this.#waiters.splice(0))
      w.reject(new GatewayError("UNAVAILABLE", `server "${this.name}" is closed`));
    const all = [...this.#idle, ...this.#busy];
    this.#idle = [];
    this.#busy.clear();
    await Promise.all(all.map((i) => this.#end(i)));
  }

  #total(): number {
    return this.#idle.length + this.#busy.size + this.#warming + this.#direct;
  }

  /** Starts warm instances until `warm` are idle or starting (never past `max`). */
  #refill(): void {
    if (this.#state === "closed" || this.#retry) return;
    while (this.#idle.length + this.#warming < this.isolation.warm && this.#total() < this.isolation.max) {
      void this.#spawn("warm").then(
        (instance) => {
          if (this.#state === "closed") return void this.#end(instance);
          const waiter = this.#waiters.shift();
          if (waiter) this.#busy.add(instance);
          else this.#idle.push(instance);
          this.#ready();
          waiter?.resolve(instance);
          if (waiter) this.#refill();
        },
        (err) => {
          // No more waiting than instances being started.
          while (this.#waiters.length > this.#warming) this.#waiters.pop()?.reject(err);
          this.#failed(err);
        },
      );
    }
  }

  async #spawn(kind: "warm" | "direct"): Promise<Tracked> {
    if (kind === "warm") this.#warming++;
    else this.#direct++;
    let workdir: string | undefined;
    try {
      workdir = await this.#makeWorkdir();
      const upstream = new McpUpstream(
        { ...this.#config, transport: withWorkdir(this.#config.transport, workdir) },
        this.#log,
        this.#adopt ? { adopt: this.#adopt } : {},
      );
      await upstream.start();
      if (upstream.state !== "ready") {
        const detail = upstream.detail;
        await upstream.close();
        throw new GatewayError("UNAVAILABLE", `server "${this.name}": an instance did not start (${detail})`);
      }
      this.#adopt ??= upstream.negotiated;
      this.#instanceDetail = upstream.detail;
      const instance: Tracked = {
        id: randomUUID(),
        upstream,
        workdir,
        pid: upstream.pid,
        onLost: undefined,
        done: false,
      };
      upstream.on("state", (state) => {
        if (state === "down") this.#lost(instance);
      });
      upstream.on("tools", (tools) => this.#setTools(tools));
      this.#setTools(upstream.tools());
      this.#log.debug({ pid: instance.pid, workdir }, "instance started");
      return instance;
    } catch (err) {
      if (workdir) await rm(workdir, { recursive: true, force: true }).catch(() => {});
      throw err;
    } finally {
      if (kind === "warm") this.#warming--;
      else this.#direct--;
    }
  }

  async #makeWorkdir(): Promise<string | undefined> {
    const how = this.isolation.workdir;
    if (how.kind === "none") return undefined;
    const dir = await mkdtemp(join(tmpdir(), `rlf-${this.name}-`));
    if (how.kind === "copy") await cp(how.from, join(dir, basename(how.from)), { recursive: true });
    return dir;
  }

  /** The process went away on its own: never respawned; its episode (if any) is lost. */
  #lost(instance: Tracked): void {
    if (instance.done) return;
    this.#log.warn({ pid: instance.pid, detail: instance.upstream.detail }, "instance died");
    this.#idle = this.#idle.filter((i) => i !== instance);
    const held = this.#busy.delete(instance);
    void this.#end(instance).then(() => this.#refill());
    if (held) instance.onLost?.();
  }

  async #end(instance: Tracked): Promise<void> {
    instance.done = true;
    await instance.upstream.close().catch(() => {});
    if (instance.workdir) await rm(instance.workdir, { recursive: true, force: true }).catch(() => {});
  }

  #setTools(tools: readonly Tool[]): void {
    if (JSON.stringify(tools) === JSON.stringify(this.#tools)) return;
    this.#tools = tools;
    this.emit("tools", tools);
  }

  #ready(): void {
    this.#failures = 0;
    this.#detail = `one process per episode; ${this.#instanceDetail}`;
    this.#setState("ready");
  }

  /** An instance did not start: said in /readyz, logged, and the warm pool tried again after a backoff. */
  #failed(err: unknown): void {
    if (this.#state === "closed") return;
    this.#detail = (err as Error).message ?? String(err);
    this.#log.warn({ err: this.#detail }, "instance start failed");
    if (this.#tools.length === 0) this.#setState("down");
    if (this.#retry) return;
    const { initialDelayMs, maxDelayMs } = this.#config.upstream.reconnect;
    const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#failures++);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#tools.length === 0) void this.start();
      else this.#refill();
    }, delay);
    this.#retry.unref();
  }

  #setState(state: UpstreamState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.emit("state", state);
  }
}

/** The stdio transport with `{workdir}` replaced by the instance's directory (args, env values, cwd). */
function withWorkdir(
  transport: ServerConfig["transport"],
  workdir: string | undefined,
): ServerConfig["transport"] {
  if (transport.kind !== "stdio" || workdir === undefined) return transport;
  const sub = (v: string) => v.replaceAll(WORKDIR_PLACEHOLDER, workdir);
  return {
    ...transport,
    args: transport.args.map(sub),
    env: Object.fromEntries(Object.entries(transport.env).map(([k, v]) => [k, sub(v)])),
    cwd: transport.cwd === undefined ? undefined : sub(transport.cwd),
  };
}

/** `value` with `{workdir}` replaced in every string inside it (a snapshot tool's arguments). */
export function substituteWorkdir(value: unknown, workdir: string | undefined): unknown {
  if (workdir === undefined) return value;
  if (typeof value === "string") return value.replaceAll(WORKDIR_PLACEHOLDER, workdir);
  if (Array.isArray(value)) return value.map((v) => substituteWorkdir(v, workdir));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteWorkdir(v, workdir)]));
  return value;
}
