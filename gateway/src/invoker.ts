// The request path for one tool call, top to bottom:
//
//   resolve the tool → check argument size → parse JSON → check nesting depth (iteratively, before
//   anything recursive sees the value) → validate against the input schema → inject the episode's
//   handle (episode calls: then no cache, no retry; see episodes.ts)
//   → deadline (one AbortSignal: caller cancel ∪ deadline; its reason says whose the abort is) → cache + single-flight
//   → retry → circuit breaker → bulkhead (policies.ts) → MCP tools/call → output cap
//
// Every outcome is a CallOutcome: either an MCP result (which may carry the tool's own `isError`) or
// a typed GatewayError. Nothing thrown below escapes as an exception.
import { EventEmitter } from "node:events";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { raceSignal, SingleFlight } from "@rlfactory/kit";
import { EPISODE_HANDLE_ARG } from "@rlfactory/proto/environment-contract";
import { CALLER_META_KEY } from "@rlfactory/proto/mcp-meta";
import { injectTraceMeta } from "@rlfactory/telemetry";
import { isBrokenCircuitError } from "cockatiel";
import type { Logger } from "pino";
import { exceedsDepth } from "./argument-depth.ts";
import { cacheKey, type ResultCache } from "./cache.ts";
import type { Catalog, CatalogEntry } from "./catalog.ts";
import type { Episodes } from "./episodes.ts";
import { CallerAbortError, GatewayError, isGatewayError, toGatewayError, truncate } from "./errors.ts";
import { toWireOutput, type WireOutput } from "./output.ts";
import type { UpstreamPolicies } from "./policies.ts";
import type { Upstream } from "./upstream.ts";

export interface CallRequest {
  name: string;
  argumentsJson: string;
  /**
   * Arguments already parsed by the caller's transport (the HTTP route's JSON body): when set,
   * `argumentsJson` is ignored and the value gets the same depth, size and schema checks.
   */
  argumentsValue?: unknown;
  /** 0: the tool's configured default. */
  deadlineMs: number;
  trajectoryId: string;
  bypassCache: boolean;
  callId: string;
  /** Caller-side cancellation (client went away). */
  signal?: AbortSignal;
  /** Time left on the caller's own RPC deadline, if it set one: the call's deadline never exceeds it. */
  rpcRemainingMs?: number;
  /** Run against this episode's state (empty: none). Never cached, never retried. */
  episodeId?: string;
}

export interface CallOutcome {
  name: string;
  callId: string;
  server: string | undefined;
  output?: WireOutput;
  error?: GatewayError;
  latencyMs: number;
  cacheHit: boolean;
  /** Joined another caller's in-flight execution (single-flight). */
  coalesced: boolean;
  attempts: number;
}

export interface InvokerEvents {
  call: [outcome: CallOutcome];
  cache: [result: "hit" | "miss", server: string];
}

const tracer = trace.getTracer("rlfactory-gateway");

/** Result of the shared (cacheable) execution: the raw result plus how it was obtained. */
interface Execution {
  result: CallToolResult;
  fromCache: boolean;
}

interface CallStats {
  attempts: number;
  cacheHit: boolean;
  coalesced: boolean;
}

export class Invoker extends EventEmitter<InvokerEvents> {
  #catalog: Catalog;
  #cache: ResultCache;
  #policies: Map<string, UpstreamPolicies>;
  #flights = new SingleFlight<Execution>();
  #log: Logger | undefined;
  #episodes: Episodes | undefined;

  constructor(
    catalog: Catalog,
    cache: ResultCache,
    policies: Map<string, UpstreamPolicies>,
    log?: Logger,
    episodes?: Episodes,
  ) {
    super();
    this.#catalog = catalog;
    this.#cache = cache;
    this.#policies = policies;
    this.#log = log;
    this.#episodes = episodes;
  }

  /** Runs one call. Never throws; `span` is the span that represents this call (attributes go there). */
  async call(req: CallRequest, ctx: Context, span: Span): Promise<CallOutcome> {
    const started = performance.now();
    const stats: CallStats = { attempts: 0, cacheHit: false, coalesced: false };
    let entry: CatalogEntry | undefined;
    let output: WireOutput | undefined;
    let error: GatewayError | undefined;
    let deadline: Deadline | undefined;
    try {
      entry = this.#resolve(req.name);
      // A tool its server lists but cannot run here: answered without a call (never counts against the breaker).
      if (entry.unavailable !== undefined)
        throw new GatewayError("UNAVAILABLE", `${entry.name}: ${entry.unavailable}`);
      const parsed = parseArguments(req, entry);
      const { args, upstream } = this.#route(req, entry, parsed);
      const deadlineMs = Math.max(
        1,
        Math.min(
          req.deadlineMs || entry.policy.deadlineMs,
          entry.policy.maxDeadlineMs,
          req.rpcRemainingMs ?? Infinity,
        ),
      );
      // The server's configured timeout: a deadline shorter than this is the caller's, not the server's.
      const configuredMs = Math.min(entry.policy.deadlineMs, entry.policy.maxDeadlineMs);
      deadline = startDeadline(deadlineMs, configuredMs, req.signal, entry.name);
      const result = await raceSignal(
        this.#execute(entry, upstream, args, req, deadline.signal, ctx, stats),
        deadline.signal,
      );
      if (req.episodeId) {
        this.#episodes?.checkResult(req.episodeId, result);
        this.#episodes?.touch(req.episodeId);
        // The caller's arguments: a replay sets its own instance's fixed arguments.
        this.#episodes?.record(req.episodeId, entry, parsed, result);
      }
      output = toWireOutput(
        result,
        { maxBytes: entry.policy.maxOutputBytes, maxImageBytes: entry.policy.maxImageBytes },
        entry.name,
      );
      // A cache hit spent nothing: the usage stored with the result was the first call's.
      if (stats.cacheHit) delete output.usage;
    } catch (err) {
      error = toGatewayError(err, req.name);
      // The caller sees only "internal gateway error": the cause (error and stack) goes to the log.
      if (error.code === "INTERNAL") {
        this.#log?.error(
          {
            err: error.cause ?? error,
            tool: truncate(req.name),
            call_id: req.callId,
            message: error.message,
          },
          "internal gateway error",
        );
      }
    } finally {
      deadline?.dispose();
    }
    const outcome: CallOutcome = {
      name: req.name,
      callId: req.callId,
      server: entry?.server,
      latencyMs: performance.now() - started,
      ...stats,
      ...(output ? { output } : {}),
      ...(error ? { error } : {}),
    };
    annotate(span, outcome, req);
    this.emit("call", outcome);
    return outcome;
  }

  #resolve(name: string): CatalogEntry {
    const entry = this.#catalog.get(name);
    if (!entry) {
      const hint = name.includes("__") ? "" : " (gateway tool names are server__tool)";
      throw new GatewayError(
        "UNKNOWN_TOOL",
        `unknown tool "${truncate(name, 100)}"${hint}; ListTools shows the catalog`,
      );
    }
    return entry;
  }

  /**
   * Where the call goes and with what: a per-episode-instance server's tool to the episode's own
   * process; otherwise the server, with the episode's handle injected for a stateful tool.
   */
  #route(
    req: CallRequest,
    entry: CatalogEntry,
    args: Record<string, unknown>,
  ): { args: Record<string, unknown>; upstream: Upstream } {
    if (this.#episodes?.isolated(entry.server)) {
      if (!req.episodeId)
        throw new GatewayError(
          "INVALID_ARGUMENTS",
          `${entry.name}: server "${entry.server}" runs one process per episode: the call needs an episode_id (StartEpisode)`,
        );
      return this.#episodes.instanceCall(req.episodeId, entry, args);
    }
    return { args: this.#withHandle(req, entry, args), upstream: entry.upstream };
  }

  /**
   * The arguments the server gets: for a stateful tool, the episode's handle injected (after validation
   * against the schema the model sees, which has no handle). A call and its episode must match.
   */
  #withHandle(req: CallRequest, entry: CatalogEntry, args: Record<string, unknown>): Record<string, unknown> {
    if (!req.episodeId) {
      if (entry.stateful)
        throw new GatewayError(
          "INVALID_ARGUMENTS",
          `${entry.name} is stateful: the call needs an episode_id (StartEpisode)`,
        );
      return args;
    }
    if (!this.#episodes)
      throw new GatewayError("EPISODE_NOT_FOUND", `${entry.name}: this gateway has no episodes`);
    const handle = this.#episodes.handleFor(req.episodeId, entry.server);
    if (!entry.stateful)
      throw new GatewayError(
        "INVALID_ARGUMENTS",
        `${entry.name} keeps no episode state: call it without episode_id`,
      );
    return { ...args, [EPISODE_HANDLE_ARG]: handle };
  }

  /** Cache + single-flight for cacheable tools; straight to the upstream stack otherwise. */
  async #execute(
    entry: CatalogEntry,
    upstream: Upstream,
    args: Record<string, unknown>,
    req: CallRequest,
    signal: AbortSignal,
    ctx: Context,
    stats: CallStats,
  ): Promise<CallToolResult> {
    // An episode call changes state: never answered from (nor written to) the cache.
    if (!entry.policy.cache || req.bypassCache || req.episodeId)
      return this.#invokeUpstream(
        entry,
        upstream,
        args,
        req.trajectoryId,
        signal,
        ctx,
        stats,
        Boolean(req.episodeId),
      );

    const key = cacheKey(entry.server, entry.upstreamName, args, entry.schemaVersion);
    // Join a run already in flight before asking the cache: its result is not stored yet.
    if (!this.#flights.has(key)) {
      const hit = await this.#cache.get(key);
      if (hit) {
        stats.cacheHit = true;
        this.emit("cache", "hit", entry.server);
        return hit;
      }
    }
    // Only the caller that starts the run counts its attempts (`stats` is this caller's).
    const { value, joined } = await this.#flights.run(key, signal, async (flightSignal) => {
      // Re-check: a run that finished between our miss and now has stored its result.
      const again = await this.#cache.get(key);
      if (again) return { result: again, fromCache: true };
      const result = await this.#invokeUpstream(
        entry,
        upstream,
        args,
        req.trajectoryId,
        flightSignal,
        ctx,
        stats,
        false,
      );
      // Only successful results are shared; a tool error is retried by the next caller.
      if (!result.isError) await this.#cache.set(key, result, entry.policy.cacheTtlMs);
      return { result, fromCache: false };
    });
    stats.coalesced = joined;
    stats.cacheHit = value.fromCache;
    this.emit("cache", value.fromCache ? "hit" : "miss", entry.server);
    return value.result;
  }

  /** retry → breaker → bulkhead → MCP tools/call, each attempt inside the remaining deadline. */
  async #invokeUpstream(
    entry: CatalogEntry,
    upstream: Upstream,
    args: Record<string, unknown>,
    caller: string,
    signal: AbortSignal,
    ctx: Context,
    stats: CallStats,
    episode: boolean,
  ): Promise<CallToolResult> {
    const policies = this.#policies.get(entry.server);
    if (!policies) throw new GatewayError("INTERNAL", `no policies for server ${entry.server}`);
    // An episode call is never idempotent: a retry could apply a step twice.
    const stack = policies.stackFor(entry.policy.idempotent && !episode, entry.policy.retry);
    let lastFailure: GatewayError | undefined;
    try {
      return await stack.execute(async ({ signal: attemptSignal }) => {
        attemptSignal.throwIfAborted();
        stats.attempts++;
        try {
          return await this.#attempt(entry, upstream, args, caller, attemptSignal, ctx, stats.attempts);
        } catch (err) {
          // Once the call's signal has fired, the call ended for that reason (whatever the upstream threw
          // on its way out): a CallerAbortError when the caller's deadline or cancel ended it, which the
          // breaker does not count; a plain TIMEOUT at the server's configured deadline, which it does.
          lastFailure = toGatewayError(signal.aborted ? signal.reason : err, entry.name);
          throw lastFailure;
        }
      }, signal);
    } catch (err) {
      // A retry refused by a circuit that our own failure just opened: report that failure, which is
      // what happened to this call, rather than the circuit that stopped the retry.
      if (lastFailure && isBrokenCircuitError(err)) throw lastFailure;
      throw err;
    }
  }

  /**
   * One upstream MCP call inside a CLIENT span; trace context travels in `params._meta`, and so does
   * the caller (the trajectory id), for tool servers that share their capacity fairly between callers.
   */
  async #attempt(
    entry: CatalogEntry,
    upstream: Upstream,
    args: Record<string, unknown>,
    caller: string,
    signal: AbortSignal,
    ctx: Context,
    attempt: number,
  ): Promise<CallToolResult> {
    const span = tracer.startSpan(
      `tools/call ${entry.upstreamName}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": entry.upstreamName,
          "gen_ai.operation.name": "execute_tool",
          "rlf.gateway.tool": entry.name,
          "rlf.server": entry.server,
          "rlf.attempt": attempt,
        },
      },
      ctx,
    );
    try {
      const result = await upstream.callTool(entry.upstreamName, args, {
        signal,
        // The signal carries the real deadline; this only bounds the SDK's own timer.
        timeoutMs: entry.policy.maxDeadlineMs,
        meta: injectTraceMeta(caller ? { [CALLER_META_KEY]: caller } : {}, trace.setSpan(ctx, span)),
      });
      if (result.isError) span.setAttribute("error.type", "tool_error");
      return result;
    } catch (err) {
      const mapped = toGatewayError(err, entry.name);
      span.setAttribute("error.type", mapped.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: mapped.message });
      throw mapped;
    } finally {
      span.end();
    }
  }
}

function parseArguments(req: CallRequest, entry: CatalogEntry): Record<string, unknown> {
  let args: unknown = {};
  if (req.argumentsValue !== undefined) {
    // Depth first: JSON.stringify and everything after it recurse.
    checkDepth(req.argumentsValue, entry);
    args = req.argumentsValue;
    checkBytes(Buffer.byteLength(JSON.stringify(args)), entry);
  } else {
    const text = req.argumentsJson;
    checkBytes(Buffer.byteLength(text), entry);
    if (text.trim() !== "") {
      try {
        // JSON.parse itself copes with deep nesting; what comes after (schema validation, canonical
        // JSON for the cache key) recurses, so the depth is checked before either sees the value.
        args = JSON.parse(text);
      } catch (err) {
        throw new GatewayError(
          "INVALID_ARGUMENTS",
          `${entry.name}: arguments are not valid JSON (${(err as Error).message})`,
        );
      }
    }
    checkDepth(args, entry);
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new GatewayError("INVALID_ARGUMENTS", `${entry.name}: arguments must be a JSON object`);
  }
  const problem = entry.validate(args as Record<string, unknown>);
  if (problem) throw new GatewayError("INVALID_ARGUMENTS", `${entry.name}: ${truncate(problem, 500)}`);
  return args as Record<string, unknown>;
}

function checkBytes(bytes: number, entry: CatalogEntry): void {
  if (bytes > entry.policy.maxArgumentBytes) {
    throw new GatewayError(
      "ARGUMENTS_TOO_LARGE",
      `${entry.name}: arguments are ${bytes} bytes; the limit is ${entry.policy.maxArgumentBytes}`,
    );
  }
}

function checkDepth(value: unknown, entry: CatalogEntry): void {
  const limit = entry.policy.maxArgumentDepth;
  if (exceedsDepth(value, limit)) {
    throw new GatewayError(
      "INVALID_ARGUMENTS",
      `${entry.name}: arguments nest deeper than ${limit} levels (max_argument_depth is ${limit})`,
    );
  }
}

interface Deadline {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * One signal for the call: aborts with TIMEOUT at the deadline, or with CANCELLED when the caller goes.
 * A deadline shorter than the server's configured one (`configuredMs`) is the caller's: its TIMEOUT is a
 * CallerAbortError, like every abort that comes from the caller's signal. Only a TIMEOUT at (or past) the
 * configured deadline is a plain GatewayError, and so counts against the server's breaker.
 */
function startDeadline(
  deadlineMs: number,
  configuredMs: number,
  caller: AbortSignal | undefined,
  name: string,
): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    const message = `${name}: no result within the ${deadlineMs} ms deadline`;
    controller.abort(
      deadlineMs < configuredMs
        ? new CallerAbortError("TIMEOUT", message)
        : new GatewayError("TIMEOUT", message),
    );
  }, deadlineMs);
  const onCancel = () => controller.abort(callerReason(caller?.reason, name, deadlineMs));
  if (caller?.aborted) onCancel();
  else caller?.addEventListener("abort", onCancel, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onCancel);
    },
  };
}

/**
 * The caller's own deadline passing (a "TimeoutError", see callerGone) is a TIMEOUT, not a cancel.
 * Either way the caller ended the call: a CallerAbortError, never counted against the server.
 */
function callerReason(reason: unknown, name: string, deadlineMs: number): GatewayError {
  if (isGatewayError(reason))
    return reason.code === "TIMEOUT" || reason.code === "CANCELLED"
      ? new CallerAbortError(reason.code, reason.message)
      : reason;
  if (reason instanceof DOMException && reason.name === "TimeoutError")
    return new CallerAbortError("TIMEOUT", `${name}: no result within the ${deadlineMs} ms deadline`);
  return new CallerAbortError("CANCELLED", `${name}: cancelled by the caller`);
}

function annotate(span: Span, o: CallOutcome, req: CallRequest): void {
  span.setAttributes({
    "gen_ai.tool.name": o.name,
    "gen_ai.operation.name": "execute_tool",
    "rlf.cache_hit": o.cacheHit,
    "rlf.coalesced": o.coalesced,
    "rlf.attempts": o.attempts,
    ...(req.trajectoryId ? { "rlf.trajectory_id": req.trajectoryId } : {}),
    ...(req.episodeId ? { "rlf.episode_id": req.episodeId } : {}),
  });
  // Images by hash and size only: a span never carries an image's bytes.
  const images = o.output?.images;
  if (images)
    span.setAttributes({
      "rlf.image.count": images.length,
      "rlf.image.sha256": images.map((i) => i.sha256),
      "rlf.image.bytes": images.map((i) => i.bytes),
      "rlf.image.mime_type": images.map((i) => i.mimeType),
    });
  if (o.error) {
    span.setAttribute("error.type", o.error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: o.error.message });
  } else if (o.output?.isError) {
    span.setAttribute("error.type", "tool_error");
  }
}
