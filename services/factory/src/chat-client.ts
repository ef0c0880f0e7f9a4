// The pipeline's one LLM client: OpenAI chat completions (the repository's OpenAiChatClient), a JSON
// reply parsed by a zod schema. A
// transport failure (refused, 5xx, 429, deadline) is retried with backoff (cockatiel); a malformed
// reply (not JSON, wrong shape) is asked again with the problem in the conversation, a bounded number
// of times, then rejected with its reason. Token usage is counted per call.
import { createHash } from "node:crypto";
import { isOpenAiChatError, OpenAiChatClient } from "@rlfactory/clients/openai-chat-client";
import { ExponentialBackoff, handleWhen, retry } from "cockatiel";
import { z } from "zod";
import type { BuildConfig } from "./build-config.ts";

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  requests: number;
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    requests: a.requests + b.requests,
  };
}

export const NO_USAGE: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, requests: 0 };

/** The endpoint could not be reached or kept failing: the build stops (it resumes later). */
export class EndpointError extends Error {
  override name = "EndpointError";
}

/** The model's replies never had the stage's shape: the item is rejected with this reason. */
export class MalformedReplyError extends Error {
  override name = "MalformedReplyError";
  readonly usage: TokenUsage;
  constructor(message: string, usage: TokenUsage) {
    super(message);
    this.usage = usage;
  }
}

export interface ChatJsonRequest<T> {
  /** The stage's instructions (its first line names the stage). */
  system: string;
  /** The item's input, sent as JSON. */
  input: unknown;
  schema: z.ZodType<T>;
  /** Mixed into the request seed, so that items differ and a rerun of one item asks the same. */
  key: string;
}

export interface ChatJsonResult<T> {
  value: T;
  usage: TokenUsage;
}

/** The JSON object in a reply: the whole text, the first fenced block, or the outermost braces. */
export function extractJson(text: string): unknown {
  // A reasoning model's thinking (Qwen3, DeepSeek-R1 without a reasoning parser) comes first: drop it.
  const trimmed = text.replace(/^[\s\S]*<\/think>/, "").trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
  const candidates = [trimmed, fenced?.[1]?.trim()];
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(trimmed.slice(first, last + 1));
  for (const c of candidates) {
    if (c === undefined || c === "") continue;
    try {
      return JSON.parse(c);
    } catch {}
  }
  throw new Error("the reply is not JSON");
}

/** A 31-bit request seed from the build seed and an item key. */
export function requestSeed(seed: number, key: string): number {
  return createHash("sha256").update(`${seed}\0${key}`).digest().readUInt32BE(0) & 0x7fffffff;
}

export class ChatClient {
  private readonly endpoint: BuildConfig["endpoint"];
  private readonly seed: number;
  private readonly maxReplyRetries: number;
  private readonly client: OpenAiChatClient;

  constructor(config: Pick<BuildConfig, "endpoint" | "seed" | "max_reply_retries">) {
    this.endpoint = config.endpoint;
    this.seed = config.seed;
    this.maxReplyRetries = config.max_reply_retries;
    const env = config.endpoint.api_key_env;
    const apiKey = env === undefined ? undefined : process.env[env];
    if (env !== undefined && !apiKey) throw new EndpointError(`the API key variable ${env} is not set`);
    this.client = new OpenAiChatClient({
      baseUrl: config.endpoint.base_url,
      timeoutMs: config.endpoint.timeout_ms,
      ...(apiKey ? { apiKey } : {}),
    });
  }

  /** Asks until the reply parses (at most 1 + max_reply_retries times); throws MalformedReplyError. */
  async json<T>(request: ChatJsonRequest<T>): Promise<ChatJsonResult<T>> {
    const messages: { role: "system" | "user" | "assistant"; content: string }[] = [
      { role: "system", content: request.system },
      { role: "user", content: JSON.stringify(request.input) },
    ];
    let usage = NO_USAGE;
    let problem = "";
    for (let attempt = 0; attempt <= this.maxReplyRetries; attempt++) {
      const { content, usage: used } = await this.complete(messages, requestSeed(this.seed, request.key));
      usage = addUsage(usage, used);
      try {
        const parsed = request.schema.safeParse(extractJson(content));
        if (parsed.success) return { value: parsed.data, usage };
        problem = `the reply does not have the required shape: ${z.prettifyError(parsed.error)}`;
      } catch (err) {
        problem = (err as Error).message;
      }
      messages.push(
        { role: "assistant", content },
        {
          role: "user",
          content: `Your reply was rejected: ${problem}\nAnswer again with only the JSON object, in the required shape.`,
        },
      );
    }
    throw new MalformedReplyError(
      `malformed reply after ${this.maxReplyRetries + 1} attempts: ${problem}`,
      usage,
    );
  }

  private async complete(
    messages: { role: "system" | "user" | "assistant"; content: string }[],
    seed: number,
  ): Promise<{ content: string; usage: TokenUsage }> {
    const { endpoint } = this;
    const policy = retry(
      // A deadline counts as a transport failure here: the build's endpoint may be slow to warm up.
      handleWhen((err) => isOpenAiChatError(err) && (err.retryable || err.kind === "timeout")),
      {
        maxAttempts: endpoint.http_retries,
        backoff: new ExponentialBackoff({ initialDelay: 250, maxDelay: 5000 }),
      },
    );
    try {
      const completion = await policy.execute(() =>
        this.client.complete({
          model: endpoint.model,
          messages,
          temperature: endpoint.temperature,
          max_tokens: endpoint.max_tokens,
          seed,
          ...(endpoint.json_mode ? { response_format: { type: "json_object" as const } } : {}),
        }),
      );
      return { content: completion.text, usage: { ...completion.usage, requests: 1 } };
    } catch (err) {
      if (isOpenAiChatError(err)) throw new EndpointError(err.message, { cause: err });
      throw err;
    }
  }
}
