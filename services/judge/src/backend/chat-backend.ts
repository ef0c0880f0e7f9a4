// The judge's model backend: a pool of OpenAI-compatible chat endpoints (vLLM, SGLang, or any hosted
// API) behind the `ChatBackend` interface. One shared undici keep-alive agent; the kit's EndpointPool
// across `base_urls` (least-loaded routing; an endpoint that is unreachable or answers 5xx is ejected
// for a cool-down, 5 s doubling up to 60 s, while another is healthy; a retry avoids the endpoints its
// request already tried); a cockatiel policy stack (concurrency limit, circuit breaker, retries with
// exponential backoff, per-attempt timeout). Every failure is a `JudgeError`: BACKEND_UNAVAILABLE
// (unreachable), BACKEND_ERROR (error status after retries, or an answer without text), TIMEOUT (an
// attempt ran past `timeout_ms`), CANCELLED (the caller's signal, or `close()`), CIRCUIT_OPEN (too many
// consecutive failures; nothing is sent until the breaker half-opens).
//
// Batching: there is no client-side batching. Requests are sent concurrently, up to `max_concurrency`
// at once (more wait in a queue, never rejected); vLLM and SGLang batch concurrent requests on the
// server (continuous batching), which is where batching pays.

import {
  type ChatCompletion,
  type ChatPost,
  isOpenAiChatError,
  OpenAiChatClient,
  type OpenAiChatRequest,
} from "@rlfactory/clients/openai-chat-client";
import { EndpointPool, type EndpointStatus, type PoolEndpoint, raceSignal } from "@rlfactory/kit";
import {
  BrokenCircuitError,
  bulkhead,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  IsolatedCircuitError,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
  wrap,
} from "cockatiel";
import { Agent, request as httpRequest } from "undici";
import { z } from "zod";
import { JudgeError } from "../judge-types.ts";
import type { ChatBackend, ChatBackendRequest, ChatBackendResponse } from "./chat-backend-types.ts";

/** A base URL, normalised: no trailing slash, no trailing `/v1` (we append `/v1/chat/completions`). */
const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .transform((u) => u.replace(/\/+$/, "").replace(/\/v1$/, ""));

export const backendConfigSchema = z
  .strictObject({
    /** One endpoint (shorthand for `base_urls: [url]`). */
    base_url: baseUrlSchema.optional(),
    /** Endpoints serving the same model; each request goes to the one with the fewest in flight. */
    base_urls: z.array(baseUrlSchema).min(1).optional(),
    /** Model name sent with every request and recorded with every score. */
    model: z.string().min(1),
    /** Name of the environment variable holding the API key (sent as `Authorization: Bearer`), read per call. */
    api_key_env: z.string().min(1).optional(),
    /** Limit of one attempt, ms (a request with retries may take longer). */
    timeout_ms: z.number().int().positive().default(60_000),
    /** Extra attempts after connection errors, 5xx and 429 (never other 4xx, never timeouts). */
    retries: z.number().int().min(0).max(10).default(2),
    /** First backoff delay, ms; then exponential with jitter, at most 10 s. */
    retry_initial_delay_ms: z.number().int().min(0).default(250),
    /** Requests in flight at once, over all endpoints; more wait in a queue (never rejected). */
    max_concurrency: z.number().int().positive().default(32),
    breaker: z
      .strictObject({
        /** Consecutive failed requests (after their retries) that open the circuit. */
        consecutive_failures: z.number().int().positive().default(5),
        /** Time the circuit stays open before one trial request is let through. */
        half_open_after_ms: z.number().int().positive().default(10_000),
      })
      .prefault({}),
    /** Send `response_format: json_schema` (strict) when a request carries a schema. */
    json_schema: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    if ((c.base_url === undefined) === (c.base_urls === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "give exactly one of base_url and base_urls",
        path: ["base_urls"],
      });
    }
    const twice = c.base_urls?.find((u, i) => c.base_urls?.indexOf(u) !== i);
    if (twice !== undefined) {
      ctx.addIssue({ code: "custom", message: `${twice} is listed twice`, path: ["base_urls"] });
    }
  })
  .transform(({ base_url, base_urls, ...rest }) => ({
    base_urls: base_urls ?? [base_url as string],
    ...rest,
  }));
export type BackendConfig = z.infer<typeof backendConfigSchema>;
export type BackendConfigInput = z.input<typeof backendConfigSchema>;

/** A failed attempt, with what the policies need to know about it. Callers see it as a JudgeError. */
class AttemptError extends JudgeError {
  /** Worth another attempt: connection errors, 5xx, 429. */
  readonly retryable: boolean;
  /** Says the backend is unhealthy (counts towards opening the circuit). */
  readonly unhealthy: boolean;
  constructor(code: JudgeError["code"], message: string, flags: { retryable: boolean; unhealthy: boolean }) {
    super(code, message);
    this.retryable = flags.retryable;
    this.unhealthy = flags.unhealthy;
  }
}

export interface ChatBackendPool extends ChatBackend {
  /** The endpoints, normalised. */
  readonly servers: readonly string[];
  /** Requests in flight per endpoint. */
  inFlight(): Record<string, number>;
  /** Each endpoint's routing state: in flight, ejected or not, consecutive failures. */
  status(): EndpointStatus[];
  /** Policy events for logs and metrics (each returns a disposable). */
  readonly events: {
    onRetry: ReturnType<typeof retry>["onRetry"];
    onBreak: ReturnType<typeof circuitBreaker>["onBreak"];
    onReset: ReturnType<typeof circuitBreaker>["onReset"];
    onHalfOpen: ReturnType<typeof circuitBreaker>["onHalfOpen"];
  };
}

const MAX_BACKOFF_MS = 10_000;

export function createChatBackend(config: BackendConfig): ChatBackendPool {
  const servers = [...config.base_urls];
  const pool = new EndpointPool<PoolEndpoint>(servers.map((url) => ({ url })));
  const agent = new Agent({
    connections: config.max_concurrency,
    keepAliveTimeout: 30_000,
    // The per-attempt timeout policy governs; undici's own timeouts would only report it differently.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const closing = new AbortController();

  // The policy stack, outermost first:
  const limit = bulkhead(config.max_concurrency, Number.MAX_SAFE_INTEGER); // 1. at most max_concurrency at once, others queue
  const breaker = circuitBreaker(
    // 2. per request (after its retries): repeated backend failures stop all traffic for a while
    handleWhen((e) => e instanceof AttemptError && e.unhealthy),
    {
      halfOpenAfter: config.breaker.half_open_after_ms,
      breaker: new ConsecutiveBreaker(config.breaker.consecutive_failures),
    },
  );
  const retries = retry(
    // 3. transient faults only, with exponential backoff and jitter; each attempt picks its endpoint again
    handleWhen((e) => e instanceof AttemptError && e.retryable),
    {
      maxAttempts: config.retries,
      backoff: new ExponentialBackoff({
        initialDelay: config.retry_initial_delay_ms,
        maxDelay: MAX_BACKOFF_MS,
      }),
    },
  );
  const attemptTimeout = timeout(config.timeout_ms, TimeoutStrategy.Cooperative); // 4. each attempt (aborts its signal)
  const policy = wrap(limit, breaker, retries, attemptTimeout);

  /** The API key, read per call (a rotated key is picked up); unset: the request fails at once. */
  function apiKey(): string | undefined {
    if (!config.api_key_env) return undefined;
    const key = process.env[config.api_key_env];
    if (!key) {
      throw new AttemptError(
        "BACKEND_UNAVAILABLE",
        `the API key variable ${config.api_key_env} (api_key_env) is not set`,
        { retryable: false, unhealthy: false },
      );
    }
    return key;
  }

  // Every endpoint's client posts with undici's request() on the one keep-alive agent.
  const post: ChatPost = async (url, init) => {
    const res = await httpRequest(url, { dispatcher: agent, method: "POST", ...init });
    return { status: res.statusCode, text: await res.body.text() };
  };

  async function attempt(
    request: OpenAiChatRequest,
    attemptSignal: AbortSignal,
    requestSignal: AbortSignal,
    tried: Set<string>,
  ): Promise<ChatBackendResponse> {
    const endpoint = pool.pick(undefined, tried);
    const server = endpoint.url;
    tried.add(server);
    pool.begin(endpoint);
    try {
      const key = apiKey();
      const client = new OpenAiChatClient({
        baseUrl: server,
        post,
        ...(key === undefined ? {} : { apiKey: key }),
      });
      let answer: ChatCompletion;
      try {
        answer = await client.complete(request, { signal: attemptSignal });
      } catch (err) {
        if (!isOpenAiChatError(err) || err.kind === "cancelled") throw err;
        if (err.kind === "http") {
          const status = err.status ?? 0;
          if (status >= 500) pool.failed(endpoint);
          else if (status !== 429) pool.succeeded(endpoint); // a 429 is busy, not broken
          throw new AttemptError("BACKEND_ERROR", err.message, {
            retryable: err.retryable,
            unhealthy: err.retryable,
          });
        }
        if (err.kind === "bad_response") {
          pool.succeeded(endpoint);
          throw new AttemptError("BACKEND_ERROR", `${server} gave a bad response: ${err.message}`, {
            retryable: false,
            unhealthy: true,
          });
        }
        throw err;
      }
      pool.succeeded(endpoint);
      return { text: answer.text, model: answer.model, usage: answer.usage, server };
    } catch (err) {
      if (err instanceof JudgeError) throw err;
      if (requestSignal.aborted) {
        throw new JudgeError(
          "CANCELLED",
          closing.signal.aborted ? "backend closed" : "cancelled by the caller",
        );
      }
      if (attemptSignal.aborted) {
        throw new AttemptError("TIMEOUT", `${server} did not answer within ${config.timeout_ms} ms`, {
          retryable: false,
          unhealthy: true,
        });
      }
      pool.failed(endpoint);
      throw new AttemptError("BACKEND_UNAVAILABLE", (err as Error).message ?? String(err), {
        retryable: true,
        unhealthy: true,
      });
    } finally {
      pool.end(endpoint);
    }
  }

  function toJudgeError(err: unknown, signal: AbortSignal, attempts: number): JudgeError {
    if (signal.aborted) {
      return new JudgeError(
        "CANCELLED",
        closing.signal.aborted ? "backend closed" : "cancelled by the caller",
      );
    }
    if (err instanceof JudgeError) {
      const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : "";
      return new JudgeError(err.code, `${err.message}${suffix}`, { cause: err });
    }
    if (err instanceof BrokenCircuitError || err instanceof IsolatedCircuitError) {
      return new JudgeError(
        "CIRCUIT_OPEN",
        `judge backend circuit open after ${config.breaker.consecutive_failures} consecutive failures; retrying after ${config.breaker.half_open_after_ms} ms`,
        { cause: err },
      );
    }
    if (err instanceof TaskCancelledError) {
      return new JudgeError("TIMEOUT", `no answer within ${config.timeout_ms} ms`, { cause: err });
    }
    return new JudgeError("INTERNAL", `judge backend: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }

  return {
    model: config.model,
    jsonSchema: config.json_schema,
    servers,
    inFlight: () => pool.inFlight(),
    status: () => pool.status(),
    events: {
      onRetry: retries.onRetry,
      onBreak: breaker.onBreak,
      onReset: breaker.onReset,
      onHalfOpen: breaker.onHalfOpen,
    },

    async complete(request: ChatBackendRequest): Promise<ChatBackendResponse> {
      const signal = request.signal ? AbortSignal.any([request.signal, closing.signal]) : closing.signal;
      if (signal.aborted) throw toJudgeError(undefined, signal, 0);
      const body = chatRequest(config.model, request, config.json_schema);
      let attempts = 0;
      const tried = new Set<string>();
      const run = policy.execute(({ signal: attemptSignal }) => {
        attempts++;
        return attempt(body, attemptSignal, signal, tried);
      }, signal);
      // The queue and the retry backoff do not watch the signal: answer a cancellation at once, and
      // let the abandoned run settle on its own (its next attempt sees the aborted signal).
      try {
        return await raceSignal(run, signal);
      } catch (err) {
        throw toJudgeError(err, signal, attempts);
      }
    },

    async close(): Promise<void> {
      closing.abort();
      await agent.destroy();
    },
  };
}

/** The request sent for one judge request; `response_format` only when `useJsonSchema` and it has a schema. */
function chatRequest(model: string, request: ChatBackendRequest, useJsonSchema: boolean): OpenAiChatRequest {
  return {
    model,
    messages: request.messages,
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    ...(request.top_p === undefined ? {} : { top_p: request.top_p }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(useJsonSchema && request.jsonSchema
      ? {
          response_format: {
            type: "json_schema" as const,
            json_schema: {
              name: request.jsonSchema.name,
              schema: request.jsonSchema.schema,
              strict: true as const,
            },
          },
        }
      : {}),
  };
}
