// One long-lived MCP client connection per upstream server (never a session per call).
//
// stdio servers are spawned and respawned with exponential backoff when they die; Streamable HTTP
// (and legacy SSE) servers are reconnected the same way when the connection breaks. While an
// upstream is not ready, calls fail fast with UNAVAILABLE instead of hanging.
//
// A reconnect keeps the protocol version negotiated before: once a server offered 2026-07-28 via
// `server/discover`, later connections adopt that verdict instead of probing again. (A stdio probe
// runs on a throw-away sibling process with a short budget; a respawn slowed by a loaded machine
// timed it out, which on stdio reads as "legacy" and dropped the server to 2025-11-25.) Should the
// server no longer speak it, the reconnect's tools/list fails and the next attempt probes afresh.
import { EventEmitter } from "node:events";
import { availableParallelism, loadavg } from "node:os";
import {
  type CallToolResult,
  type ClientOptions,
  type PriorDiscovery,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import type { Logger } from "pino";
import { CoalescingStdioClientTransport } from "./coalescing-stdio-transport.ts";
import type { ServerConfig } from "./config.ts";
import { GatewayError, toGatewayError } from "./errors.ts";
import { createPooledFetch } from "./http-fetch.ts";
import { UpstreamClient } from "./upstream-client.ts";

/** Every state of a server's connection (`closed`: the gateway is shutting down, for good). */
export const UPSTREAM_STATES = ["connecting", "ready", "down", "closed"] as const;
export type UpstreamState = (typeof UPSTREAM_STATES)[number];

export interface UpstreamCallOptions {
  signal: AbortSignal;
  /** Hard upper bound handed to the MCP SDK (the signal normally fires first). */
  timeoutMs: number;
  /** MCP `params._meta` (trace context). */
  meta?: Record<string, unknown>;
}

/** What the rest of the gateway needs from an upstream; tests may provide in-memory ones. */
export interface Upstream {
  readonly name: string;
  readonly state: UpstreamState;
  /** Human-readable detail for /readyz (last error, negotiated protocol). */
  readonly detail: string;
  tools(): readonly Tool[];
  callTool(name: string, args: Record<string, unknown>, opts: UpstreamCallOptions): Promise<CallToolResult>;
  start(): Promise<void>;
  close(): Promise<void>;
  on(event: "state", listener: (state: UpstreamState) => void): this;
  on(event: "tools", listener: (tools: readonly Tool[]) => void): this;
}

/**
 * What a connection negotiated, for a connection to another copy of the same server to adopt without
 * probing again (the per-episode instances of one server: instance-pool.ts).
 */
export type Negotiated =
  | { era: "modern"; prior: Extract<PriorDiscovery, { kind: "modern" }> }
  | { era: "legacy" };

const CLIENT_INFO = { name: "rlfactory-gateway", version: "0.1.0" };
const PROBE_TIMEOUT_MS = 3_000;
/** How long the ping confirming a lost HTTP connection may take (at most the connect timeout). */
const PING_TIMEOUT_MS = 5_000;

/**
 * The `server/discover` probe's budget for a connection attempt: 3 s, stretched by the machine's load
 * average per core, and doubled after each failed attempt in a row (up to the connect timeout). A probe
 * that timed out on a loaded machine reads as "legacy"; a server that had already committed to
 * 2026-07-28 then fails the legacy handshake, and the next attempt probes with more time instead of
 * failing the same way for the gateway's lifetime.
 */
export function probeTimeoutMs(failures: number, connectTimeoutMs: number, loadPerCore: number): number {
  const scaled = PROBE_TIMEOUT_MS * Math.max(1, loadPerCore) * 2 ** Math.min(failures, 10);
  return Math.round(Math.min(Math.max(PROBE_TIMEOUT_MS, connectTimeoutMs), scaled));
}
/** The last lines of a stdio server's stderr kept, shown (at the default log level) when it fails to start. */
const STDERR_TAIL_LINES = 10;

export class McpUpstream extends EventEmitter implements Upstream {
  readonly name: string;
  #config: ServerConfig;
  #log: Logger;
  #client: UpstreamClient | undefined;
  /**
   * The tools a call may reach through `callToolPlain()` (upstream-client.ts): on a stdio connection,
   * those listed without an `outputSchema`.
   */
  #plainTools = new Set<string>();
  #state: UpstreamState = "connecting";
  #tools: readonly Tool[] = [];
  #detail = "";
  #failures = 0;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #connecting: Promise<void> | undefined;
  /** The modern era verdict of the last successful connection, adopted by the next one. */
  #prior: Extract<PriorDiscovery, { kind: "modern" }> | undefined;
  /** Keep-alive HTTP pool shared by every connection to this upstream (HTTP upstreams only). */
  #http = createPooledFetch();
  /** The last lines the current stdio process wrote to stderr (why it failed to start, usually). */
  #stderrTail: string[] = [];
  /** The current stdio transport (its process id, for logs and instance pools). */
  #stdio: CoalescingStdioClientTransport | undefined;
  /** A sibling connection's verdict, adopted on the first connection (`auto` protocol only). */
  #adopted: Negotiated | undefined;
  /** The ping confirming that an HTTP connection is lost, while one is in flight (`#confirmLost`). */
  #pingCheck: { client: UpstreamClient; done: Promise<void> } | undefined;

  constructor(config: ServerConfig, log: Logger, opts: { adopt?: Negotiated } = {}) {
    super();
    this.name = config.name;
    this.#config = config;
    this.#log = log.child({ upstream: config.name });
    if (config.protocol === "auto" && opts.adopt) {
      this.#adopted = opts.adopt;
      if (opts.adopt.era === "modern") this.#prior = opts.adopt.prior;
    }
  }

  /** The process id of a connected stdio server (undefined otherwise). */
  get pid(): number | undefined {
    return this.#client ? (this.#stdio?.pid ?? undefined) : undefined;
  }

  /** What the current connection negotiated (undefined while not connected). */
  get negotiated(): Negotiated | undefined {
    if (!this.#client) return undefined;
    return this.#prior ? { era: "modern", prior: this.#prior } : { era: "legacy" };
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

  /** First connection. Resolves once connected or once the first attempt failed (a retry is then scheduled). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#state !== "ready" || !client) {
      throw new GatewayError(
        "UNAVAILABLE",
        `tool server "${this.name}" is ${this.#state}; ${this.#detail}`.trim(),
      );
    }
    try {
      const params = { name, arguments: args, ...(opts.meta ? { _meta: opts.meta } : {}) };
      const options = { signal: opts.signal, timeout: opts.timeoutMs };
      if (this.#plainTools.has(name)) return await client.callToolPlain(params, options);
      return (await client.callTool(params, options)) as CallToolResult;
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      const mapped = toGatewayError(err, `${this.name}__${name}`);
      if (mapped.code === "UNAVAILABLE" && this.#client === client) {
        // Over stdio the pipe is the connection: it is gone. Over HTTP each POST is its own request, and
        // one that failed (a reset keep-alive socket) says nothing of the others in flight; a server
        // that went away does not always surface as a transport close though: ask it (one ping), and
        // reconnect only when that fails too. The call waits for the verdict (not past its deadline),
        // so its caller sees the upstream's state as decided.
        if (this.#config.transport.kind === "stdio") this.#onConnectionLost(mapped.message);
        else await Promise.race([this.#confirmLost(client, mapped.message), aborted(opts.signal)]);
      }
      throw mapped;
    }
  }

  async close(): Promise<void> {
    this.#setState("closed");
    clearTimeout(this.#reconnectTimer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
    await this.#http.close().catch(() => {});
  }

  #setTools(tools: readonly Tool[]): void {
    this.#tools = tools;
    const stdio = this.#config.transport.kind === "stdio";
    this.#plainTools = new Set(stdio ? tools.filter((t) => !t.outputSchema).map((t) => t.name) : []);
  }

  #setState(state: UpstreamState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.emit("state", state);
  }

  #connect(): Promise<void> {
    this.#connecting ??= this.#connectOnce().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connectOnce(): Promise<void> {
    if (this.#state === "closed") return;
    this.#setState("connecting");
    const client = new UpstreamClient(CLIENT_INFO, this.#clientOptions());
    const transport = this.#transport();
    const timeout = this.#config.upstream.connectTimeoutMs;
    const prior = this.#prior;
    try {
      await client.connect(transport, prior ? { timeout, prior } : { timeout });
      // Adopting a verdict skips the connect-time subscription a probed connect opens for
      // list_changed notifications: open it here.
      if (prior && client.getServerCapabilities()?.tools?.listChanged)
        await client.listen({ toolsListChanged: true }, { timeout });
      const { tools } = await client.listTools(undefined, { timeout });
      if ((this.#state as UpstreamState) === "closed") {
        await client.close().catch(() => {});
        return;
      }
      this.#client = client;
      this.#setTools(tools);
      this.#failures = 0;
      const discover = client.getDiscoverResult();
      this.#prior =
        client.getProtocolEra() === "modern" && discover ? { kind: "modern", discover } : undefined;
      this.#detail = `protocol ${client.getNegotiatedProtocolVersion() ?? "unknown"}`;
      client.onclose = () => {
        if (this.#client === client) this.#onConnectionLost("connection closed");
      };
      this.#log.info(
        { tools: tools.length, protocol: client.getNegotiatedProtocolVersion() },
        "upstream ready",
      );
      this.emit("tools", tools);
      this.#setState("ready");
    } catch (err) {
      await client.close().catch(() => {});
      // The remembered verdict may be what failed (the server changed): negotiate afresh next time.
      this.#prior = undefined;
      this.#adopted = undefined;
      this.#detail = `connect failed: ${(err as Error).message?.split("\n", 1)[0] ?? String(err)}`;
      // A stdio server that could not start usually said why on stderr: show it at the default level.
      const stderr = this.#stderrTail.length > 0 ? { stderr: this.#stderrTail.join("\n") } : {};
      this.#log.warn({ err: this.#detail, ...stderr }, "upstream connect failed");
      this.#setState("down");
      this.#scheduleReconnect();
    }
  }

  /**
   * After a failed HTTP call: one `ping` (`server/discover` on the 2026-07-28 era) on `client`; when that
   * fails too, the connection is lost. Calls failing meanwhile share the check in flight (at most one
   * per connection).
   */
  #confirmLost(client: UpstreamClient, reason: string): Promise<void> {
    if (this.#pingCheck?.client === client) return this.#pingCheck.done;
    const timeout = Math.min(PING_TIMEOUT_MS, this.#config.upstream.connectTimeoutMs);
    // `ping` is gone from the 2026-07-28 era: ask a modern server to describe itself instead.
    const ask =
      client.getProtocolEra() === "modern" ? client.discover({ timeout }) : client.ping({ timeout });
    const done = ask
      .then(
        () => this.#log.debug({ reason }, "upstream call failed; the server answers a ping: connection kept"),
        (err: unknown) => {
          if (this.#client !== client) return;
          const why = (err as Error).message?.split("\n", 1)[0] ?? String(err);
          this.#onConnectionLost(`${reason} (ping: ${why})`);
        },
      )
      .finally(() => {
        if (this.#pingCheck?.client === client) this.#pingCheck = undefined;
      });
    this.#pingCheck = { client, done };
    return done;
  }

  #onConnectionLost(reason: string): void {
    if (this.#state === "closed") return;
    const client = this.#client;
    this.#client = undefined;
    this.#detail = reason;
    const stderr = this.#stderrTail.length > 0 ? { stderr: this.#stderrTail.join("\n") } : {};
    this.#log.warn({ reason, ...stderr }, "upstream connection lost");
    this.#setState("down");
    client?.close().catch(() => {});
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#state === "closed" || this.#reconnectTimer) return;
    const { initialDelayMs, maxDelayMs } = this.#config.upstream.reconnect;
    const exp = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#failures);
    const delay = exp / 2 + Math.random() * (exp / 2); // "equal jitter"
    this.#failures++;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#connect();
    }, delay);
    this.#reconnectTimer.unref();
  }

  #clientOptions(): ClientOptions {
    const protocol = this.#adopted?.era === "legacy" ? "legacy" : this.#config.protocol;
    const versionNegotiation =
      protocol === "legacy"
        ? { mode: "legacy" as const }
        : protocol === "auto"
          ? {
              mode: "auto" as const,
              probe: {
                timeoutMs: probeTimeoutMs(
                  this.#failures,
                  this.#config.upstream.connectTimeoutMs,
                  loadavg()[0]! / availableParallelism(),
                ),
              },
            }
          : { mode: { pin: protocol } };
    return {
      versionNegotiation,
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (this.#state === "closed") return;
            if (error || !tools) {
              this.#log.warn({ err: error?.message }, "tools/list refresh after list_changed failed");
              return;
            }
            this.#setTools(tools);
            this.#log.info({ tools: tools.length }, "tool list changed");
            this.emit("tools", tools);
          },
        },
      },
    };
  }

  #transport(): Transport {
    const t = this.#config.transport;
    if (t.kind === "model" || t.kind === "agent")
      throw new Error(`server "${this.name}" is a ${t.kind} server, not an MCP server`);
    if (t.kind === "stdio") {
      const transport = new CoalescingStdioClientTransport({
        command: t.command,
        args: t.args,
        // The SDK passes only a safe subset of our environment; add tracing settings so tool servers
        // export spans to the same collector, then the server's own env.
        env: { ...getDefaultEnvironment(), ...otelEnv(), ...t.env },
        ...(t.cwd ? { cwd: t.cwd } : {}),
        stderr: "pipe",
      });
      this.#stdio = transport;
      const tail: string[] = [];
      this.#stderrTail = tail;
      transport.stderr?.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split("\n")) {
          if (!line.trim()) continue;
          this.#log.debug({ stderr: line.slice(0, 2_000) }, "upstream stderr");
          tail.push(line.slice(0, 500));
          if (tail.length > STDERR_TAIL_LINES) tail.shift();
        }
      });
      return transport;
    }
    const requestInit = { headers: t.headers };
    return t.kind === "sse"
      ? new SSEClientTransport(new URL(t.url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(t.url), { requestInit, fetch: this.#http.fetch });
  }
}

/** Resolves when `signal` aborts (never, when it does not). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function otelEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[0].startsWith("OTEL_") && e[1] !== undefined,
    ),
  );
}

export function createUpstream(config: ServerConfig, log: Logger): Upstream {
  return new McpUpstream(config, log);
}
