// HTTP client of the Tinker training API (SkyRL's Tinker-compatible server and hosted Tinker): JSON
// requests, futures, and the resilience stack around each HTTP request. Shapes: tinker-schema.ts.
//
// A call that returns a future is two phases: POST the request (→ `request_id`), then poll
// `retrieve_future` until the result is there. Pending is either a 408 (SkyRL holds the poll up to
// 300 s, then answers 408) or a 200 `{"type": "try_again"}` (hosted Tinker); neither counts as a
// failure. A future that failed is a 400 `{detail}` (SkyRL) or a 200 `{error, category}` (Tinker).
//
// The stack for one HTTP request, outermost first:
//   cancellation   the caller's signal aborts the request and any back-off at once → CANCELLED
//   retry          connection errors and 5xx only, exponential back-off; never a 4xx, a bad body or a
//                  timeout. Safe for training calls: they carry a seq_id, and SkyRL answers a repeated
//                  (model_id, seq_id) with the original request_id
//   bulkhead       at most `maxConcurrency` requests in flight (sampling fans out); the rest queue
//   timeout        per attempt → TIMEOUT (a retrieve_future attempt that times out is simply re-sent:
//                  the server may hold a long poll)
import { setTimeout as sleep } from "node:timers/promises";
import { describeNetworkError, shorten as shortenTo } from "@rlfactory/rollout";
import {
  bulkhead,
  ExponentialBackoff,
  handleType,
  type IPolicy,
  type RetryPolicy,
  retry,
  TaskCancelledError,
  wrap,
} from "cockatiel";
import { Agent, request } from "undici";
import type { z } from "zod";
import { TinkerApiError, type TinkerErrorCode } from "./errors.ts";
import {
  type AdamParams,
  type CreateModelRequest,
  createModelResponseSchema,
  createModelResultSchema,
  createSessionResponseSchema,
  type Datum,
  errorDetailSchema,
  type ForwardBackwardOutput,
  forwardBackwardOutputSchema,
  futureResponseSchema,
  type LossFn,
  loadWeightsOutputSchema,
  type ModelInfoResponse,
  modelInfoResponseSchema,
  type OptimStepOutput,
  optimStepOutputSchema,
  requestFailedResponseSchema,
  type SampleOutput,
  type SampleRequest,
  sampleOutputSchema,
  saveWeightsForSamplerOutputSchema,
  saveWeightsOutputSchema,
  TINKER_API_KEY_HEADER,
  TINKER_PATHS,
  tryAgainResponseSchema,
} from "./tinker-schema.ts";

export interface TinkerClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8000` (paths `/api/v1/...` go after it). */
  baseUrl: string;
  /** Sent as `X-API-Key` (hosted Tinker needs one; SkyRL ignores it). */
  apiKey?: string;
  /** Per HTTP request, except retrieve_future polls. Default 120 s. */
  timeoutMs?: number;
  /** Per retrieve_future attempt (re-sent when it runs out). Default 60 s. */
  pollTimeoutMs?: number;
  /** A future not done after this long is a TIMEOUT. Default 1 h (training steps can queue). */
  futureTimeoutMs?: number;
  /** Wait after a `try_again` answer before polling again. Default 250 ms. */
  pollIntervalMs?: number;
  /** Retries after the first attempt (connection errors, 5xx). Default 3. */
  retries?: number;
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** HTTP requests in flight at most. Default 64. */
  maxConcurrency?: number;
}

export interface TinkerRetryEvent {
  endpoint: string;
  attempt: number;
  delayMs: number;
  error: TinkerApiError;
}

/** A failure worth another attempt; carries the error to report when none is left. */
class RetryableFailure extends Error {
  readonly error: TinkerApiError;
  constructor(error: TinkerApiError) {
    super(error.message, { cause: error });
    this.error = error;
  }
}

interface HttpReply {
  status: number;
  text: string;
}

const MAX_ERROR_TEXT = 400;
const shorten = (text: string) => shortenTo(text, MAX_ERROR_TEXT);

export class TinkerClient {
  readonly baseUrl: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #pollTimeoutMs: number;
  readonly #futureTimeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #agent: Agent;
  readonly #retry: RetryPolicy;
  readonly #stack: IPolicy;

  constructor(options: TinkerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#headers = {
      "content-type": "application/json",
      accept: "application/json",
      ...(options.apiKey ? { [TINKER_API_KEY_HEADER]: options.apiKey } : {}),
    };
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#pollTimeoutMs = options.pollTimeoutMs ?? 60_000;
    this.#futureTimeoutMs = options.futureTimeoutMs ?? 3_600_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 250;
    const maxConcurrency = options.maxConcurrency ?? 64;
    this.#agent = new Agent({ connections: maxConcurrency });
    this.#retry = retry(handleType(RetryableFailure), {
      maxAttempts: options.retries ?? 3,
      backoff: new ExponentialBackoff({
        initialDelay: options.retryInitialDelayMs ?? 200,
        maxDelay: options.retryMaxDelayMs ?? 5_000,
      }),
    });
    // wrap()'s first argument is the outermost policy; see the header for the order.
    this.#stack = wrap(this.#retry, bulkhead(maxConcurrency, Number.POSITIVE_INFINITY));
  }

  /** Subscribes to retries (logging). */
  onRetry(listener: (event: TinkerRetryEvent) => void): { dispose(): void } {
    return this.#retry.onRetry((e) => {
      if ("error" in e && e.error instanceof RetryableFailure) {
        const error = e.error.error;
        listener({ endpoint: error.endpoint, attempt: e.attempt, delayMs: e.delay, error });
      }
    });
  }

  // ---- session -------------------------------------------------------------------------------------

  async createSession(
    options: { tags?: string[]; userMetadata?: Record<string, unknown>; sdkVersion: string },
    signal?: AbortSignal,
  ): Promise<{ sessionId: string; warning?: string }> {
    const reply = await this.#post(
      TINKER_PATHS.createSession,
      {
        tags: options.tags ?? [],
        user_metadata: options.userMetadata ?? null,
        sdk_version: options.sdkVersion,
        type: "create_session",
      },
      createSessionResponseSchema,
      signal,
    );
    if (reply.error_message) {
      throw new TinkerApiError("HTTP_ERROR", TINKER_PATHS.createSession, reply.error_message);
    }
    return {
      sessionId: reply.session_id,
      ...(reply.warning_message ? { warning: reply.warning_message } : {}),
    };
  }

  async heartbeat(sessionId: string, signal?: AbortSignal): Promise<void> {
    await this.#post(
      TINKER_PATHS.sessionHeartbeat,
      { session_id: sessionId, type: "session_heartbeat" },
      undefined,
      signal,
    );
  }

  // ---- models --------------------------------------------------------------------------------------

  /** Creates a LoRA training model and waits until the server has it. */
  async createModel(
    body: Omit<CreateModelRequest, "type">,
    signal?: AbortSignal,
  ): Promise<{ modelId: string }> {
    const endpoint = TINKER_PATHS.createModel;
    const submitted = await this.#post(
      endpoint,
      { ...body, type: "create_model" },
      createModelResponseSchema,
      signal,
    );
    const result = await this.#retrieve(endpoint, submitted.request_id, createModelResultSchema, signal);
    if (submitted.model_id !== undefined && submitted.model_id !== result.model_id) {
      throw new TinkerApiError(
        "BAD_RESPONSE",
        endpoint,
        `the server named the model ${submitted.model_id} but its future says ${result.model_id}`,
      );
    }
    return { modelId: result.model_id };
  }

  async getInfo(modelId: string, signal?: AbortSignal): Promise<ModelInfoResponse> {
    return this.#post(TINKER_PATHS.getInfo, { model_id: modelId }, modelInfoResponseSchema, signal);
  }

  // ---- training ------------------------------------------------------------------------------------

  async forwardBackward(
    args: {
      modelId: string;
      seqId?: number;
      data: Datum[];
      lossFn: LossFn;
      lossFnConfig?: Record<string, number>;
    },
    signal?: AbortSignal,
  ): Promise<ForwardBackwardOutput> {
    return this.#future(
      TINKER_PATHS.forwardBackward,
      {
        model_id: args.modelId,
        forward_backward_input: {
          data: args.data,
          loss_fn: args.lossFn,
          ...(args.lossFnConfig === undefined ? {} : { loss_fn_config: args.lossFnConfig }),
        },
        ...seq(args.seqId),
      },
      forwardBackwardOutputSchema,
      signal,
    );
  }

  async optimStep(
    args: { modelId: string; seqId?: number; adam: AdamParams },
    signal?: AbortSignal,
  ): Promise<OptimStepOutput> {
    return this.#future(
      TINKER_PATHS.optimStep,
      { model_id: args.modelId, adam_params: args.adam, ...seq(args.seqId), type: "optim_step" },
      optimStepOutputSchema,
      signal,
    );
  }

  /** Saves the current weights for sampling under `name`; resolves with the tinker:// path to sample from. */
  async saveWeightsForSampler(
    args: { modelId: string; seqId?: number; name: string },
    signal?: AbortSignal,
  ): Promise<{ path: string }> {
    const out = await this.#future(
      TINKER_PATHS.saveWeightsForSampler,
      { model_id: args.modelId, path: args.name, ...seq(args.seqId), type: "save_weights_for_sampler" },
      saveWeightsForSamplerOutputSchema,
      signal,
    );
    return { path: out.path };
  }

  /** Saves the training state (weights and optimizer) under `name`; resolves with its tinker:// path. */
  async saveWeights(
    args: { modelId: string; seqId?: number; name: string },
    signal?: AbortSignal,
  ): Promise<{ path: string }> {
    const out = await this.#future(
      TINKER_PATHS.saveWeights,
      { model_id: args.modelId, path: args.name, ...seq(args.seqId), type: "save_weights" },
      saveWeightsOutputSchema,
      signal,
    );
    return { path: out.path };
  }

  /** Loads a training state into a freshly created model (the servers allow it only as its first request). */
  async loadWeights(
    args: { modelId: string; seqId?: number; path: string; optimizer: boolean },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#future(
      TINKER_PATHS.loadWeights,
      {
        model_id: args.modelId,
        path: args.path,
        optimizer: args.optimizer,
        ...seq(args.seqId),
        type: "load_weights",
      },
      loadWeightsOutputSchema,
      signal,
    );
  }

  // ---- sampling ------------------------------------------------------------------------------------

  async sample(body: Omit<SampleRequest, "type">, signal?: AbortSignal): Promise<SampleOutput> {
    return this.#future(TINKER_PATHS.asample, { ...body, type: "sample" }, sampleOutputSchema, signal);
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  // ---- plumbing ------------------------------------------------------------------------------------

  async #future<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const submitted = await this.#post(endpoint, body, futureResponseSchema, signal);
    return this.#retrieve(endpoint, submitted.request_id, schema, signal);
  }

  /** Polls retrieve_future until the future of `endpoint` is done; resolves with its validated result. */
  async #retrieve<T>(
    endpoint: string,
    requestId: string,
    schema: z.ZodType<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const path = TINKER_PATHS.retrieveFuture;
    const what = `future ${requestId} of ${endpoint}`;
    const deadline = performance.now() + this.#futureTimeoutMs;
    for (;;) {
      if (performance.now() > deadline) {
        throw new TinkerApiError("TIMEOUT", path, `${what} not done after ${this.#futureTimeoutMs} ms`);
      }
      let reply: HttpReply;
      try {
        reply = await this.#send(path, { request_id: requestId }, this.#pollTimeoutMs, signal);
      } catch (e) {
        if (e instanceof TinkerApiError && e.code === "TIMEOUT") continue; // a long poll ran out: poll again
        throw e;
      }
      if (reply.status === 408) continue; // SkyRL: still pending after its long poll
      if (reply.status >= 200 && reply.status < 300) {
        const json = parseJson(reply.text, path);
        if (tryAgainResponseSchema.safeParse(json).success) {
          await sleep(this.#pollIntervalMs, undefined, signal ? { signal } : undefined).catch(() => {
            throw cancelled(path, signal);
          });
          continue;
        }
        const failed = requestFailedResponseSchema.safeParse(json);
        if (failed.success) {
          const category = failed.data.category ? ` (${failed.data.category})` : "";
          throw new TinkerApiError(
            "REQUEST_FAILED",
            endpoint,
            `${what} failed${category}: ${shorten(failed.data.error)}`,
          );
        }
        return validate(json, schema, endpoint, `the result of ${what}`);
      }
      // SkyRL: 400 = the future failed (its error as detail), 404 = no such future, 500 = unknown error
      const code: TinkerErrorCode = reply.status === 400 ? "REQUEST_FAILED" : "HTTP_ERROR";
      throw new TinkerApiError(
        code,
        endpoint,
        `${what}: retrieve_future answered ${reply.status}: ${errorText(reply.text)}`,
        { status: reply.status },
      );
    }
  }

  /** POST expecting 2xx; the body validated by `schema` (none: any body). */
  async #post<T>(
    path: string,
    body: unknown,
    schema: z.ZodType<T> | undefined,
    signal?: AbortSignal,
  ): Promise<T> {
    const reply = await this.#send(path, body, this.#timeoutMs, signal);
    if (reply.status < 200 || reply.status >= 300) {
      throw new TinkerApiError("HTTP_ERROR", path, `answered ${reply.status}: ${errorText(reply.text)}`, {
        status: reply.status,
      });
    }
    if (schema === undefined) return undefined as T;
    return validate(parseJson(reply.text, path), schema, path, "the answer");
  }

  /** One POST through the stack; answers any status below 500 (5xx and connection errors are retried). */
  async #send(path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<HttpReply> {
    if (signal?.aborted) throw cancelled(path, signal);
    const payload = JSON.stringify(body);
    try {
      return (await this.#stack.execute(
        () => this.#attempt(path, payload, timeoutMs, signal),
        signal,
      )) as HttpReply;
    } catch (e) {
      if (e instanceof RetryableFailure) throw e.error;
      if (e instanceof TinkerApiError) throw e;
      if (signal?.aborted || e instanceof TaskCancelledError) throw cancelled(path, signal);
      throw new TinkerApiError("UNAVAILABLE", path, describeNetworkError(e), { cause: e });
    }
  }

  async #attempt(path: string, payload: string, timeoutMs: number, signal?: AbortSignal): Promise<HttpReply> {
    const timer = AbortSignal.timeout(timeoutMs);
    const both = signal ? AbortSignal.any([signal, timer]) : timer;
    try {
      const res = await request(`${this.baseUrl}${path}`, {
        method: "POST",
        headers: this.#headers,
        body: payload,
        signal: both,
        dispatcher: this.#agent,
      });
      const text = await res.body.text();
      if (res.statusCode >= 500) {
        throw new RetryableFailure(
          new TinkerApiError("UNAVAILABLE", path, `answered ${res.statusCode}: ${errorText(text)}`, {
            status: res.statusCode,
          }),
        );
      }
      return { status: res.statusCode, text };
    } catch (e) {
      if (e instanceof RetryableFailure) throw e;
      if (signal?.aborted) throw cancelled(path, signal);
      if (timer.aborted) {
        throw new TinkerApiError("TIMEOUT", path, `no answer within ${timeoutMs} ms`, { cause: e });
      }
      throw new RetryableFailure(
        new TinkerApiError(
          "UNAVAILABLE",
          path,
          `${this.baseUrl} could not be reached: ${describeNetworkError(e)}`,
          {
            cause: e,
          },
        ),
      );
    }
  }
}

function seq(seqId: number | undefined): { seq_id?: number } {
  return seqId === undefined ? {} : { seq_id: seqId };
}

function cancelled(path: string, signal: AbortSignal | undefined): TinkerApiError {
  return new TinkerApiError("CANCELLED", path, "cancelled by the caller", { cause: signal?.reason });
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TinkerApiError("BAD_RESPONSE", path, `answered a body that is not JSON: ${shorten(text)}`);
  }
}

function validate<T>(json: unknown, schema: z.ZodType<T>, path: string, what: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 4)
    .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
    .join("; ");
  throw new TinkerApiError(
    "BAD_RESPONSE",
    path,
    `${what} does not match the Tinker API schema (${issues}): ${shorten(JSON.stringify(json))}`,
  );
}

/** The server's message: FastAPI `{detail}` (a string, or validation errors), else the text. */
function errorText(text: string): string {
  try {
    const body = errorDetailSchema.safeParse(JSON.parse(text));
    if (body.success) {
      const d = body.data.detail;
      if (typeof d === "string") return shorten(d);
      return shorten(d.map((e) => `${(e.loc ?? []).join(".")}: ${e.msg ?? "invalid"}`).join("; "));
    }
  } catch {
    // not JSON
  }
  return shorten(text) || "(empty body)";
}
