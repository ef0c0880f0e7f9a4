// The pipeline's one LLM client: OpenAI chat completions, a JSON reply parsed by a zod schema. A
// transport failure (refused, 5xx, 429, deadline) is retried with backoff (cockatiel); a malformed
// reply (not JSON, wrong shape) is asked again with the problem in the conversation, a bounded number
// of times, then rejected with its reason. Token usage is counted per call.
import { createHash } from "node:crypto";
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

class RetryableHttpError extends Error {}

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

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().optional(),
});

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
  private readonly apiKey: string | undefined;

  constructor(config: Pick<BuildConfig, "endpoint" | "seed" | "max_reply_retries">) {
    this.endpoint = config.endpoint;
    this.seed = config.seed;
    this.maxReplyRetries = config.max_reply_retries;
    const env = config.endpoint.api_key_env;
    if (env !== undefined) {
      this.apiKey = process.env[env];
      if (!this.apiKey) throw new EndpointError(`the API key variable ${env} is not set`);
    }
  }

  /** Asks until the reply parses (at most 1 + max_reply_retries times); throws MalformedReplyError. */
  async json<T>(request: ChatJsonRequest<T>): Promise<ChatJsonResult<T>> {
    const messages: { role: string; content: string }[] = [
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
    messages: { role: string; content: string }[],
    seed: number,
  ): Promise<{ content: string; usage: TokenUsage }> {
    const { endpoint } = this;
    const body = {
      model: endpoint.model,
      messages,
      temperature: endpoint.temperature,
      max_tokens: endpoint.max_tokens,
      seed,
      ...(endpoint.json_mode ? { response_format: { type: "json_object" } } : {}),
    };
    const policy = retry(
      handleWhen((err) => err instanceof RetryableHttpError),
      {
        maxAttempts: endpoint.http_retries,
        backoff: new ExponentialBackoff({ initialDelay: 250, maxDelay: 5000 }),
      },
    );
    const url = `${endpoint.base_url.replace(/\/+$/, "")}/chat/completions`;
    let text: string;
    try {
      text = await policy.execute(async () => {
        let res: Response;
        try {
          res = await fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(endpoint.timeout_ms),
          });
        } catch (err) {
          throw new RetryableHttpError(`${url}: ${(err as Error).message}`);
        }
        const answer = await res.text();
        if (res.status === 429 || res.status >= 500)
          throw new RetryableHttpError(`${url}: HTTP ${res.status} ${answer.slice(0, 200)}`);
        if (!res.ok) throw new EndpointError(`${url}: HTTP ${res.status} ${answer.slice(0, 300)}`);
        return answer;
      });
    } catch (err) {
      if (err instanceof RetryableHttpError) throw new EndpointError(err.message);
      throw err;
    }
    let completion: z.infer<typeof completionSchema>;
    try {
      completion = completionSchema.parse(JSON.parse(text));
    } catch (err) {
      throw new EndpointError(`${url}: not a chat completion: ${(err as Error).message.slice(0, 300)}`);
    }
    return {
      content: completion.choices[0]?.message.content ?? "",
      usage: {
        prompt_tokens: completion.usage?.prompt_tokens ?? 0,
        completion_tokens: completion.usage?.completion_tokens ?? 0,
        requests: 1,
      },
    };
  }
}
