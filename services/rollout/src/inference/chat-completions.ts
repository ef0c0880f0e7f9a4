// TextSampler over an OpenAI-compatible `POST /v1/chat/completions`: messages in, text out. For
// evaluating endpoints that cannot return tokens (hosted APIs); never trainable. The wire form (body,
// answer schema) is the repository's one OpenAI chat client's; the HTTP attempt is this engine's
// transport (server pool, retries, timeouts), shared with the token-level engines.
//
// Sends model, messages, temperature, top_p, max_tokens, stop (omitted when empty: some providers
// reject an empty list), seed; reads choices[0].message.content and finish_reason ("length" → length,
// "content_filter" → abort, anything else — "stop", "tool_calls" — → stop).
import {
  chatCompletionBody,
  chatCompletionResponseSchema,
  readChatCompletion,
} from "@rlfactory/clients/openai-chat-client";
import { HttpTransport, type SamplerOptions } from "./http-transport.ts";
import { ServedModel } from "./served-model.ts";
import type { ChatGenerateRequest, ChatGenerateResult, FinishReason, TextSampler } from "./types.ts";

const PATH = "/v1/chat/completions";

export class ChatCompletionsSampler implements TextSampler {
  readonly trainable = false as const;
  readonly kind = "chat-completions" as const;
  readonly transport: HttpTransport;
  readonly #model: ServedModel;

  constructor(options: SamplerOptions) {
    this.transport = new HttpTransport(options);
    this.#model = new ServedModel(this.transport, options.model);
  }

  async generate(request: ChatGenerateRequest): Promise<ChatGenerateResult> {
    const started = performance.now();
    const model = await this.#model.get(request.signal);
    const s = request.sampling;
    const { data, server } = await this.transport.call({
      method: "POST",
      path: PATH,
      body: chatCompletionBody({
        model,
        messages: request.messages,
        temperature: s.temperature,
        top_p: s.top_p,
        max_tokens: s.max_tokens,
        stop: s.stop,
        seed: s.seed,
      }),
      schema: chatCompletionResponseSchema,
      ...(request.signal !== undefined && { signal: request.signal }),
    });
    const completion = readChatCompletion(data, model);
    return {
      text: completion.text,
      finishReason: chatFinishReason(completion.finishReason),
      server,
      latencyMs: performance.now() - started,
    };
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

function chatFinishReason(value: string | null | undefined): FinishReason {
  if (value === "length") return "length";
  if (value === "content_filter") return "abort";
  return "stop";
}
