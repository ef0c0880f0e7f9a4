// The repository's one OpenAI-compatible chat-completions client (`POST …/v1/chat/completions`,
// non-streaming): the request body, the zod schema of the answer (first choice's text, finish reason,
// model, token usage), the short message kept from an error body, and ONE attempt over HTTP.
//
// Retries, breakers, endpoint pools and deadlines are the caller's policies (the factory retries with
// backoff, the judge pools endpoints behind a breaker, the gateway runs its per-tool stack, the rollout's
// transport pools inference servers); every failure of an attempt is an `OpenAiChatError` whose `kind`
// says which policy applies (`retryable`: connection failures, 5xx, 429).
import { z } from "zod";

export interface OpenAiChatMessage {
  role: string;
  content: string;
  /** An assistant message's tool calls (sent back to the model on the next request). */
  tool_calls?: readonly OpenAiToolCall[];
  /** A `tool` message: the call it answers. */
  tool_call_id?: string;
}

/** A function tool offered to the model (OpenAI `tools[]`). */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** One tool call the model made (OpenAI `message.tool_calls[]`; `arguments` is JSON text). */
export interface OpenAiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** What one request asks; absent fields are not sent (the server's defaults apply). */
export interface OpenAiChatRequest {
  model: string;
  messages: readonly OpenAiChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** Omitted when empty: some providers reject an empty list. */
  stop?: readonly string[];
  seed?: number;
  /** Functions the model may call; omitted when empty. */
  tools?: readonly OpenAiTool[];
  tool_choice?: "auto" | "none" | "required";
  response_format?:
    | { type: "json_object" }
    | { type: "json_schema"; json_schema: { name: string; schema: Record<string, unknown>; strict: true } };
}

/** Tokens one completion used (absent in the answer → 0). */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ChatCompletion {
  /** The first choice's text ("" when the model returned none). */
  text: string;
  /** The first choice's `finish_reason` as sent (`stop`, `length`, `tool_calls`, `content_filter`), or null. */
  finishReason: string | null;
  /** The model that answered (the request's when the answer names none). */
  model: string;
  usage: ChatUsage;
  /** The first choice's tool calls (empty when it made none). */
  toolCalls: OpenAiToolCall[];
}

/** The JSON body sent for one request (`stream: false`; undefined fields and an empty `stop` left out). */
export function chatCompletionBody(request: OpenAiChatRequest): Record<string, unknown> {
  const { stop, messages, tools, ...rest } = request;
  const body: Record<string, unknown> = {
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    messages: messages.map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.tool_calls !== undefined && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls } : {}),
      ...(m.tool_call_id === undefined ? {} : { tool_call_id: m.tool_call_id }),
    })),
    stream: false,
  };
  if (stop !== undefined && stop.length > 0) body.stop = [...stop];
  if (tools !== undefined && tools.length > 0) body.tools = [...tools];
  return body;
}

/** What we need from an answer; anything else in it is ignored. */
export const chatCompletionResponseSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.looseObject({
                id: z.string().nullish(),
                function: z.looseObject({
                  name: z.string(),
                  // OpenAI sends JSON text; some servers send the object itself
                  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
                }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, "no choices"),
  usage: z
    .looseObject({
      prompt_tokens: z.number().int().nonnegative().optional(),
      completion_tokens: z.number().int().nonnegative().optional(),
    })
    .nullish(),
});
export type ChatCompletionResponse = z.infer<typeof chatCompletionResponseSchema>;

/** An answer (already validated by `chatCompletionResponseSchema`) as a ChatCompletion. */
export function readChatCompletion(answer: ChatCompletionResponse, requestedModel: string): ChatCompletion {
  const choice = answer.choices[0];
  return {
    text: choice?.message.content ?? "",
    finishReason: choice?.finish_reason ?? null,
    model: answer.model ?? requestedModel,
    usage: {
      prompt_tokens: answer.usage?.prompt_tokens ?? 0,
      completion_tokens: answer.usage?.completion_tokens ?? 0,
    },
    toolCalls: (choice?.message.tool_calls ?? []).map((c, i) => ({
      id: c.id || `call_${i}`,
      type: "function" as const,
      function: {
        name: c.function.name,
        arguments:
          typeof c.function.arguments === "string"
            ? c.function.arguments
            : JSON.stringify(c.function.arguments ?? {}),
      },
    })),
  };
}

/**
 * The endpoint of a base URL: one that ends in a version segment (`…/v1`) gets `/chat/completions`,
 * any other (`http://host:8000`, a path prefix) `/v1/chat/completions`.
 */
export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v\d+[a-z0-9]*$/i.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

const errorBodySchema = z.union([
  z.object({ error: z.object({ message: z.string() }) }),
  z.object({ error: z.string() }),
  z.object({ message: z.string() }),
  z.object({ detail: z.string() }),
]);

const MAX_ERROR_MESSAGE = 200;

/** A one-line, bounded message from an error body: OpenAI `{error: {message}}`, vLLM `{message}`, FastAPI `{detail}`. */
export function errorBodyMessage(text: string): string {
  let message = text;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const b = parsed.data;
      message =
        "detail" in b
          ? b.detail
          : "message" in b
            ? b.message
            : typeof b.error === "string"
              ? b.error
              : b.error.message;
    }
  } catch {
    // not JSON: the raw text
  }
  message = message.replace(/\s+/g, " ").trim();
  return message.length > MAX_ERROR_MESSAGE
    ? `${message.slice(0, MAX_ERROR_MESSAGE)}…`
    : message || "(empty body)";
}

/** Why an attempt failed: `unreachable` (no answer), `http` (an error status), `bad_response`, `timeout`, `cancelled`. */
export type OpenAiChatErrorKind = "unreachable" | "http" | "bad_response" | "timeout" | "cancelled";

export class OpenAiChatError extends Error {
  override name = "OpenAiChatError";
  readonly kind: OpenAiChatErrorKind;
  /** The HTTP status of an `http` failure. */
  readonly status: number | undefined;
  constructor(
    kind: OpenAiChatErrorKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
  }
  /** Worth another attempt: no answer, 5xx, or 429 (busy). */
  get retryable(): boolean {
    return (
      this.kind === "unreachable" ||
      (this.kind === "http" && this.status !== undefined && (this.status >= 500 || this.status === 429))
    );
  }
}

export const isOpenAiChatError = (e: unknown): e is OpenAiChatError => e instanceof OpenAiChatError;

export interface OpenAiChatClientOptions {
  /** The API root: `http://host:8000`, `http://host:8000/v1`, `https://api.example/v1` (chatCompletionsUrl). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** One attempt's limit (absent: only the caller's signal ends it). */
  timeoutMs?: number;
  /**
   * How a request is sent (a keep-alive pool's undici `request`, say); default the global fetch. It
   * rejects only when no answer came; any status resolves.
   */
  post?: ChatPost;
}

/** One POST: the answer's status and body text. */
export type ChatPost = (
  url: string,
  init: { headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{ status: number; text: string }>;

const fetchPost: ChatPost = async (url, init) => {
  const res = await fetch(url, { method: "POST", ...init });
  return { status: res.status, text: await res.text() };
};

/** One OpenAI-compatible endpoint; `complete` makes exactly one HTTP attempt. */
export class OpenAiChatClient {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number | undefined;
  readonly #post: ChatPost;

  constructor(options: OpenAiChatClientOptions) {
    this.url = chatCompletionsUrl(options.baseUrl);
    this.#headers = {
      "content-type": "application/json",
      accept: "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
    this.#timeoutMs = options.timeoutMs;
    this.#post = options.post ?? fetchPost;
  }

  /** One attempt; rejects only with OpenAiChatError. */
  async complete(
    request: OpenAiChatRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<ChatCompletion> {
    const caller = options.signal;
    const timer = this.#timeoutMs === undefined ? undefined : AbortSignal.timeout(this.#timeoutMs);
    const signals = [caller, timer].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
    let status: number;
    let text: string;
    try {
      ({ status, text } = await this.#post(this.url, {
        headers: this.#headers,
        body: JSON.stringify(chatCompletionBody(request)),
        ...(signal ? { signal } : {}),
      }));
    } catch (err) {
      if (caller?.aborted) throw new OpenAiChatError("cancelled", `${this.url}: cancelled`, { cause: err });
      if (timer?.aborted)
        throw new OpenAiChatError("timeout", `${this.url} did not answer within ${this.#timeoutMs} ms`, {
          cause: err,
        });
      throw new OpenAiChatError("unreachable", `cannot reach ${this.url}: ${networkReason(err)}`, {
        cause: err,
      });
    }
    if (status < 200 || status >= 300) {
      throw new OpenAiChatError("http", `${this.url} answered HTTP ${status}: ${errorBodyMessage(text)}`, {
        status,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OpenAiChatError(
        "bad_response",
        `${this.url} answered a body that is not JSON: ${errorBodyMessage(text)}`,
      );
    }
    const parsed = chatCompletionResponseSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new OpenAiChatError(
        "bad_response",
        `${this.url} answered no chat completion (${issue?.path.join(".") || "body"}: ${issue?.message})`,
      );
    }
    return readChatCompletion(parsed.data, request.model);
  }
}

function networkReason(err: unknown): string {
  // fetch puts the network error in `cause`; undici's request() throws it itself.
  for (const e of [(err as { cause?: unknown } | null)?.cause, err]) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code !== "") return code;
  }
  return err instanceof Error ? err.message : String(err);
}
