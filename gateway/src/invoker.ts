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
import { EPISODE_BATCH_TOOL, EPISODE_HANDLE_ARG } from "@rlfactory/proto/environment-contract";
import { CALLER_META_KEY } from "@rlfactory/proto/mcp-meta";
import { injectTraceMeta } from "@rlfactory/telemetry";
import { isBrokenCircuitError } from "cockatiel";
import type { Logger } from "pino";
import { exceedsDepth } from "./argument-depth.ts";
import { cacheKey, type ResultCache } from "./cache.ts";
import type { Catalog, CatalogEntry } from "./catalog.ts";
import { type BatchOutcome, batchArguments, batchOutcomes, deadlineError } from "./episode-batch.ts";
import type { Episodes } from "./episodes.ts";
import {
  CallerAbortError,
  GatewayError,
  isGatewayError,
  shortMessage,
  toGatewayError,
  truncate,
} from "./errors.ts";
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
  /** Every finished call, with the request it answered (the call log reads its trajectory and arguments). */
  call: [outcome: CallOutcome, request: CallRequest];
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

const noStats = (): CallStats => ({ attempts: 0, cacheHit: false, coalesced: false });

/** A call that passed the gateway's checks: where it goes, with what, and its deadline. */
interface Prepared {
  entry: CatalogEntry;
  /** The caller's arguments, as checked. */
  parsed: Record<string, unknown>;
  /** What the server gets (the handle or fixed arguments added). */
  args: Record<string, unknown>;
  upstream: Upstream;
  deadlineMs: number;
  /** The server's configured deadline (a shorter `deadlineMs` is the caller's). */
  configuredMs: number;
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
      const p = this.#prepare(req, entry);
      deadline = startDeadline(p.deadlineMs, p.configuredMs, req.signal, entry.name);
      const result = await raceSignal(
        this.#execute(entry, p.upstream, p.args, req, deadline.signal, ctx, stats),
        deadline.signal,
      );
      output = this.#finish(req, p, result);
      // A cache hit spent nothing: the usage stored with the result was the first call's.
      if (stats.cacheHit) delete output.usage;
    } catch (err) {
      error = this.#failure(err, req);
    } finally {
      deadline?.dispose();
    }
    return this.#outcome(req, entry, started, stats, span, output, error);
  }

  /**
   * Calls that run one after another in order (a CallTools batch's calls on one episode), each with its
   * span. Never throws. On an environment server that lists `episode_batch`, the calls that pass the
   * gateway's own checks go to it as one upstream request (episode-batch.ts); otherwise, or for a
   * server run as one process per episode, one by one as `call` runs them.
   */
  async callSequence(
    reqs: readonly CallRequest[],
    ctx: Context,
    spans: readonly Span[],
  ): Promise<CallOutcome[]> {
    const episodeId = reqs[0]?.episodeId;
    const server = episodeId ? this.#episodes?.serverOf(episodeId) : undefined;
    const batchable =
      reqs.length > 1 &&
      server !== undefined &&
      this.#catalog.batches(server) &&
      !this.#episodes?.isolated(server) &&
      reqs.every((r) => r.episodeId === episodeId);
    if (!batchable) {
      const outcomes: CallOutcome[] = [];
      for (const [i, req] of reqs.entries())
        outcomes.push(await this.call(req, trace.setSpan(ctx, spans[i]!), spans[i]!));
      return outcomes;
    }
    return this.#callBatch(reqs, server, ctx, spans);
  }

  async #callBatch(
    reqs: readonly CallRequest[],
    server: string,
    ctx: Context,
    spans: readonly Span[],
  ): Promise<CallOutcome[]> {
    const started = performance.now();
    const outcomes: (CallOutcome | undefined)[] = reqs.map(() => undefined);
    const sent: { i: number; entry: CatalogEntry; p: Prepared }[] = [];
    for (const [i, req] of reqs.entries()) {
      let entry: CatalogEntry | undefined;
      try {
        entry = this.#resolve(req.name);
        // (The episode's handle is looked up here: a call of another server's tool fails, as one by one.)
        sent.push({ i, entry, p: this.#prepare(req, entry) });
      } catch (err) {
        outcomes[i] = this.#outcome(
          req,
          entry,
          started,
          noStats(),
          spans[i]!,
          undefined,
          this.#failure(err, req),
        );
      }
    }
    if (sent.length > 0) {
      const answers = await this.#sendBatch(server, sent, reqs[0]!, ctx);
      for (const [k, { i, p }] of sent.entries()) {
        const req = reqs[i]!;
        const answer = answers[k]!;
        const stats: CallStats = { attempts: 1, cacheHit: false, coalesced: false };
        let output: WireOutput | undefined;
        let error: GatewayError | undefined;
        try {
          if ("error" in answer) throw answer.error;
          output = this.#finish(req, p, answer.result);
        } catch (err) {
          error = this.#failure(err, req);
        }
        outcomes[i] = this.#outcome(req, p.entry, started, stats, spans[i]!, output, error);
      }
    }
    return outcomes as CallOutcome[];
  }

  /** One `episode_batch` request through the server's breaker and bulkhead: one outcome per call sent. */
  async #sendBatch(
    server: string,
    sent: readonly { entry: CatalogEntry; p: Prepared }[],
    head: CallRequest,
    ctx: Context,
  ): Promise<BatchOutcome[]> {
    const context = `${server}__${EPISODE_BATCH_TOOL}`;
    const calls = sent.map(({ entry, p }) => ({
      name: entry.name,
      deadlineMs: p.deadlineMs,
      configuredMs: p.configuredMs,
    }));
    // The calls run one after another: the request may take as long as their deadlines together.
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const totalMs = sum(calls.map((c) => c.deadlineMs));
    const maxMs = sum(sent.map(({ entry }) => entry.policy.maxDeadlineMs));
    const deadline = startDeadline(totalMs, sum(calls.map((c) => c.configuredMs)), head.signal, context);
    try {
      const policies = this.#policies.get(server);
      if (!policies) throw new GatewayError("INTERNAL", `no policies for server ${server}`);
      const handle = this.#episodes?.handleFor(head.episodeId ?? "", server) ?? "";
      const args = batchArguments(
        handle,
        sent.map(({ entry, p }) => ({
          name: entry.upstreamName,
          arguments: p.parsed,
          deadline_ms: p.deadlineMs,
        })),
      );
      const upstream = sent[0]!.p.upstream;
      // An episode call is never retried: the stack without retry (breaker → bulkhead), one attempt.
      const stack = policies.stackFor(false, sent[0]!.entry.policy.retry);
      const result = await raceSignal(
        stack.execute(async ({ signal }) => {
          signal.throwIfAborted();
          try {
            return await this.#upstreamCall(
              { upstream, server, tool: EPISODE_BATCH_TOOL, name: context, timeoutMs: maxMs },
              args,
              head.trajectoryId,
              signal,
              ctx,
              1,
            );
          } catch (err) {
            throw toGatewayError(deadline.signal.aborted ? deadline.signal.reason : err, context);
          }
        }, deadline.signal),
        deadline.signal,
      );
      if (result.isError) {
        // The batch itself refused (the handle unknown: every call's EPISODE_LOST; else its message).
        this.#episodes?.checkResult(head.episodeId ?? "", result);
        throw new GatewayError(
          "UPSTREAM_ERROR",
          `${context}: ${shortMessage(firstText(result)) || "tool error"}`,
        );
      }
      return batchOutcomes(result.structuredContent, calls, context);
    } catch (err) {
      // The request failed as a whole: every call it carried fails the same way. A deadline passing
      // here is each call's own TIMEOUT (the caller's, when the caller's deadlines were shorter).
      const reason = deadline.signal.aborted ? deadline.signal.reason : err;
      const mapped = toGatewayError(reason, context);
      if (mapped.code === "TIMEOUT") return calls.map((c) => ({ error: deadlineError(c) }));
      return calls.map(() => ({ error: mapped }));
    } finally {
      deadline.dispose();
    }
  }

  /** Everything checked and decided before a call leaves: arguments, route, deadline. Throws the call's failure. */
  #prepare(req: CallRequest, entry: CatalogEntry): Prepared {
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
    return { entry, parsed, args, upstream, deadlineMs, configuredMs };
  }

  /** The episode's bookkeeping for an answered call, then the result as the wire carries it (output cap). */
  #finish(req: CallRequest, p: Prepared, result: CallToolResult): WireOutput {
    if (req.episodeId) {
      this.#episodes?.checkResult(req.episodeId, result);
      this.#episodes?.touch(req.episodeId);
      // The caller's arguments: a replay sets its own instance's fixed arguments.
      this.#episodes?.record(req.episodeId, p.entry, p.parsed, result);
    }
    return toWireOutput(
      result,
      { maxBytes: p.entry.policy.maxOutputBytes, maxImageBytes: p.entry.policy.maxImageBytes },
      p.entry.name,
    );
  }

  #failure(err: unknown, req: CallRequest): GatewayError {
    const error = toGatewayError(err, req.name);
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
    return error;
  }

  #outcome(
    req: CallRequest,
    entry: CatalogEntry | undefined,
    started: number,
    stats: CallStats,
    span: Span,
    output: WireOutput | undefined,
    error: GatewayError | undefined,
  ): CallOutcome {
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
    this.emit("call", outcome, req);
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
  #attempt(
    entry: CatalogEntry,
    upstream: Upstream,
    args: Record<string, unknown>,
    caller: string,
    signal: AbortSignal,
    ctx: Context,
    attempt: number,
  ): Promise<CallToolResult> {
    const target = {
      upstream,
      server: entry.server,
      tool: entry.upstreamName,
      name: entry.name,
      // The signal carries the real deadline; this only bounds the SDK's own timer.
      timeoutMs: entry.policy.maxDeadlineMs,
    };
    return this.#upstreamCall(target, args, caller, signal, ctx, attempt);
  }

  async #upstreamCall(
    target: { upstream: Upstream; server: string; tool: string; name: string; timeoutMs: number },
    args: Record<string, unknown>,
    caller: string,
    signal: AbortSignal,
    ctx: Context,
    attempt: number,
  ): Promise<CallToolResult> {
    const span = tracer.startSpan(
      `tools/call ${target.tool}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": target.tool,
          "gen_ai.operation.name": "execute_tool",
          "rlf.gateway.tool": target.name,
          "rlf.server": target.server,
          "rlf.attempt": attempt,
        },
      },
      ctx,
    );
    try {
      const result = await target.upstream.callTool(target.tool, args, {
        signal,
        timeoutMs: target.timeoutMs,
        meta: injectTraceMeta(caller ? { [CALLER_META_KEY]: caller } : {}, trace.setSpan(ctx, span)),
      });
      if (result.isError) span.setAttribute("error.type", "tool_error");
      return result;
    } catch (err) {
      const mapped = toGatewayError(err, target.name);
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

function firstText(result: CallToolResult): string {
  const block = result.content?.find((c) => c.type === "text");
  return block && "text" in block ? String(block.text) : "";
}
