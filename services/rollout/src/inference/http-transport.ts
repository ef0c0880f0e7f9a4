// JSON over HTTP to a pool of inference servers, behind the resilience stack every client shares.
//
// The stack for one call, outermost first:
//
//   cancellation (raceAbort)   the caller's signal rejects the call at once with CANCELLED, wherever it is
//                              (queued, backing off, in flight); the same signal aborts the HTTP request
//   retry                      network errors, 5xx and 429 only, exponential back-off with jitter; each
//                              attempt picks its server again, so a retry lands on another server when
//                              the pool has one (the failed server is ejected, or avoided for a 429).
//                              Never on other 4xx, a malformed body, a timeout or a cancellation
//   bulkhead                   the client-wide limit on HTTP requests in flight; beyond it requests queue
//                              (never rejected). Sits inside retry: a request backing off holds no slot
//   timeout                    per attempt, from the moment it holds a slot (queueing does not count):
//                              aborts the HTTP request → TIMEOUT (the attempt's own timer, in `exchange`). Not retried: a generation that ran out
//                              of time on one server would most likely do so on the next one too
//   attempt                    pick a server (ServerPool), POST/GET on its keep-alive pool with undici's
//                              dispatcher protocol (`exchange`), read the body (at most `maxResponseBytes`;
//                              an error body at most ERROR_BODY_BYTES), cut the members the caller never reads
//                              (`unread`: vLLM's echoed prompt, its per-token strings and objects; one
//                              pass, unread-members.ts), parse it once and validate
//                              it: a cheap structural check of the trusted shape when the call has one
//                              (`check`), the zod schema otherwise, and always when the check fails
//
// A server's own words reach an error message (and so a trajectory's `status_reason`) only as a short
// excerpt: one line, control and format characters replaced, at most MAX_ERROR_TEXT characters.

import type { LogprobsKind } from "@rlfactory/contracts";
import {
  bulkhead,
  ExponentialBackoff,
  handleType,
  type IDisposable,
  type IPolicy,
  type RetryPolicy,
  retry,
  TaskCancelledError,
  wrap,
} from "cockatiel";
import type { z } from "zod";
import { cancelledError, raceAbort } from "./cancellation.ts";
import { ExchangeTimedOut, exchange } from "./http-exchange.ts";
import { ServerPool, type ServerStatus } from "./server-pool.ts";
import { InferenceError } from "./types.ts";

export interface TransportOptions {
  /** Base URLs of the servers (`http://host:port`, optionally with a path prefix). */
  urls: readonly string[];
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Per-attempt timeout. Default 120 s. */
  timeoutMs?: number;
  /** Retries after the first attempt (network errors, 5xx, 429). Default 2. */
  retries?: number;
  /** Most HTTP requests in flight across all servers; the rest wait in a queue. Default 256. */
  maxConcurrency?: number;
  /** Retry back-off: first delay and cap (exponential with decorrelated jitter). Default 100 ms / 2 s. */
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Server ejection after a failure: first cool-down and cap. Default 5 s / 60 s. */
  cooldownMs?: number;
  maxCooldownMs?: number;
  /** Most sticky sessions remembered. Default 100,000. */
  maxSessions?: number;
  /** Largest response body read from a server; a longer one is dropped → RESPONSE_TOO_LARGE. Default 32 MiB. */
  maxResponseBytes?: number;
}

/** Default of `inference.max_response_bytes`. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** The most of a non-2xx body read: only an excerpt of it is ever shown. */
const ERROR_BODY_BYTES = 64 * 1024;

/** Options of every sampler client: its transport, plus the model name where the protocol needs one. */
export interface SamplerOptions extends TransportOptions {
  /** Model name for OpenAI-style requests; when absent, the first id of `GET /v1/models`. */
  model?: string;
  /** What the servers' logprobs are (`inference.logprobs_mode`); absent: the engine's default. */
  logprobsKind?: LogprobsKind;
}

export interface HttpCall<T> {
  method: "GET" | "POST";
  /** Endpoint path, e.g. `/v1/completions` (put after the server's base URL). */
  path: string;
  /** JSON body (POST). */
  body?: unknown;
  /** The body as JSON, UTF-8 bytes already (POST; instead of `body`): sent as they are. */
  bodyBytes?: Uint8Array;
  /** Shape of a 2xx body; a body that does not match is BAD_RESPONSE. */
  schema: z.ZodType<T>;
  /**
   * A cheap structural check, true only for bodies the schema accepts unchanged (no defaults, no
   * transforms): when it holds the parsed body is used as is, and zod runs only for bodies it rejects
   * (to reject them with the schema's messages, or accept what the check is too strict for).
   */
  check?: (json: unknown) => json is T;
  /**
   * Decodes a 2xx body to the text that is parsed, without the members the caller never reads (vLLM's
   * echoed `prompt_token_ids`, `logprobs.top_logprobs`, ...): an `unreadCutter`, made once.
   */
  unread?: (body: Buffer) => string;
  sessionId?: string;
  signal?: AbortSignal;
}

export interface HttpAnswer<T> {
  data: T;
  /** Base URL of the server that answered. */
  server: string;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Why the previous attempt failed. */
  error: InferenceError;
}

/** A failure worth another attempt; carries the error to report if no attempt is left. */
class RetryableFailure extends Error {
  readonly error: InferenceError;
  constructor(error: InferenceError) {
    super(error.message, { cause: error });
    this.error = error;
  }
}

const MAX_ERROR_TEXT = 200;

export class HttpTransport {
  readonly pool: ServerPool;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  /** How much of a body is read: a 2xx one up to maxResponseBytes, an error body up to ERROR_BODY_BYTES. */
  readonly #bodyBound = (status: number): number =>
    status >= 200 && status < 300 ? this.#maxResponseBytes : ERROR_BODY_BYTES;
  readonly #retry: RetryPolicy;
  readonly #stack: IPolicy;

  constructor(options: TransportOptions) {
    const maxConcurrency = options.maxConcurrency ?? 256;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.pool = new ServerPool(options.urls, {
      connections: maxConcurrency,
      ...(options.cooldownMs !== undefined && { cooldownMs: options.cooldownMs }),
      ...(options.maxCooldownMs !== undefined && { maxCooldownMs: options.maxCooldownMs }),
      ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    });
    this.#headers = {
      "content-type": "application/json",
      accept: "application/json",
      ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }),
    };
    this.#retry = retry(handleType(RetryableFailure), {
      maxAttempts: options.retries ?? 2,
      backoff: new ExponentialBackoff({
        initialDelay: options.retryInitialDelayMs ?? 100,
        maxDelay: options.retryMaxDelayMs ?? 2_000,
      }),
    });
    // Order matters; see the header. wrap()'s first argument is the outermost policy. The timeout is the
    // attempt's own deadline (`exchange`): cockatiel's timeout policy would cost an AbortController, its
    // listeners and a timer per attempt where one timer does
    this.#stack = wrap(this.#retry, bulkhead(maxConcurrency, Number.POSITIVE_INFINITY));
  }

  /** Runs one call through the stack; rejects only with `InferenceError`. */
  async call<T>(call: HttpCall<T>): Promise<HttpAnswer<T>> {
    const callerSignal = call.signal;
    if (callerSignal?.aborted) throw cancelledError(callerSignal);
    const tried = new Set<string>();
    // The body as bytes, made once for every attempt: a request holds its body until the answer comes (at
    // thousands in flight, seconds), and bytes are held off the JS heap, where a string would be copied by
    // the young generation's GC and then promoted.
    const { body, bodyBytes, ...rest } = call;
    const bytes = bodyBytes ?? (body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
    const work = this.#stack.execute(() => this.#attempt(rest, bytes, tried), callerSignal) as Promise<
      HttpAnswer<T>
    >;
    try {
      return await raceAbort(work, callerSignal);
    } catch (error) {
      throw finalError(error, callerSignal);
    }
  }

  /** Subscribes to retries (for logs and metrics). */
  onRetry(listener: (event: RetryEvent) => void): IDisposable {
    return this.#retry.onRetry((e) => {
      if ("error" in e && e.error instanceof RetryableFailure) {
        listener({ attempt: e.attempt, delayMs: e.delay, error: e.error.error });
      }
    });
  }

  status(): ServerStatus[] {
    return this.pool.status();
  }

  /** Closes the keep-alive connections once the requests in flight are done (abort them to stop sooner). */
  close(): Promise<void> {
    return this.pool.close();
  }

  async #attempt<T>(
    call: Omit<HttpCall<T>, "body" | "bodyBytes">,
    body: Uint8Array | undefined,
    tried: Set<string>,
  ): Promise<HttpAnswer<T>> {
    const server = this.pool.pick(call.sessionId, tried);
    tried.add(server.url);
    const where = `${server.url}${call.path}`;
    this.pool.begin(server);
    try {
      const {
        status,
        body: answer,
        complete,
      } = await exchange(
        server.dispatcher,
        {
          method: call.method,
          path: `${server.basePath}${call.path}`,
          headers: this.#headers,
          ...(body !== undefined && { body }),
        },
        this.#bodyBound,
        call.signal,
        this.#timeoutMs,
      );
      const ok = status >= 200 && status < 300;
      if (ok && !complete) {
        throw new InferenceError(
          "RESPONSE_TOO_LARGE",
          `${where} answered a body over inference.max_response_bytes (${this.#maxResponseBytes} bytes); it was not read`,
          { status },
        );
      }
      if (ok) {
        this.pool.succeeded(server);
        // UTF-8, a byte-order mark kept (what Buffer#toString does), less what the caller never reads
        const json = call.unread === undefined ? answer.toString("utf8") : call.unread(answer);
        return { data: parseBody(json, call.schema, call.check, where), server: server.url };
      }
      const error = new InferenceError(
        "HTTP_ERROR",
        `${where} answered ${status}: ${serverErrorText(answer.toString("utf8"))}`,
        {
          status,
        },
      );
      if (status >= 500) {
        this.pool.failed(server);
        throw new RetryableFailure(error);
      }
      if (status === 429) throw new RetryableFailure(error); // busy, not broken: not ejected
      throw error;
    } catch (error) {
      if (error instanceof InferenceError || error instanceof RetryableFailure) throw error;
      if (call.signal?.aborted) throw cancelledError(call.signal);
      if (error instanceof ExchangeTimedOut) {
        throw new InferenceError(
          "TIMEOUT",
          `${where} did not answer within the request timeout (${this.#timeoutMs} ms)`,
          {
            cause: error,
          },
        );
      }
      this.pool.failed(server);
      throw new RetryableFailure(
        new InferenceError("UNAVAILABLE", `${where} could not be reached: ${describeNetworkError(error)}`, {
          cause: error,
        }),
      );
    } finally {
      this.pool.end(server);
    }
  }
}

/**
 * A body as text, reading at most `maxBytes`: `complete` false when there was more (the rest is not
 * read: leaving the loop destroys a Node stream and cancels a web stream, which closes that connection).
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  for await (const chunk of body) {
    if (size + chunk.byteLength > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      complete = false;
      break;
    }
    size += chunk.byteLength;
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks, size).toString("utf8"), complete };
}

function parseBody<T>(
  text: string,
  schema: z.ZodType<T>,
  check: ((json: unknown) => json is T) | undefined,
  where: string,
): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InferenceError("BAD_RESPONSE", `${where} answered a body that is not JSON: ${shorten(text)}`);
  }
  if (check?.(json)) return json;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
      .join("; ");
    throw new InferenceError("BAD_RESPONSE", `${where} answered an unexpected body (${shorten(issues)})`);
  }
  return parsed.data;
}

/** The server's own error message, short: OpenAI/vLLM `{error: {message}}`, `{message}`, FastAPI `{detail}`. */
function serverErrorText(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const candidates: unknown[] = [];
    if (body && typeof body === "object") {
      const err = body.error;
      if (err && typeof err === "object") candidates.push((err as Record<string, unknown>).message);
      candidates.push(err, body.message, body.detail);
    }
    for (const c of candidates) {
      if (typeof c === "string" && c.trim()) return shorten(c);
      if (Array.isArray(c) && c.length > 0) return shorten(JSON.stringify(c));
    }
  } catch {
    // not JSON: the text itself
  }
  return shorten(text) || "(empty body)";
}

/**
 * A foreign text as a short, safe excerpt (for error messages that quote a server): one line, control
 * and format characters (terminal escapes, bidi overrides, zero-width marks) as `?`, cut to `max`
 * characters.
 */
export function shorten(text: string, max: number = MAX_ERROR_TEXT): string {
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const oneLine = head
    .replace(/\s+/g, " ")
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu, "?")
    .trim();
  const cut = [...oneLine];
  return cut.length > max || head.length < text.length ? `${cut.slice(0, max).join("")}…` : oneLine;
}

/** A network error as `CODE message` (undici/Node put the useful part in `code`). */
export function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code)
      ? `${code} ${error.message}`
      : error.message;
  }
  return String(error);
}

/** What `call` rejects with: always an InferenceError. */
function finalError(error: unknown, callerSignal: AbortSignal | undefined): InferenceError {
  if (error instanceof RetryableFailure) return error.error;
  if (error instanceof InferenceError) return error;
  if (callerSignal?.aborted) return cancelledError(callerSignal);
  if (error instanceof TaskCancelledError) {
    return new InferenceError("CANCELLED", "inference request cancelled", { cause: error });
  }
  return new InferenceError("UNAVAILABLE", `inference request failed: ${describeNetworkError(error)}`, {
    cause: error,
  });
}
