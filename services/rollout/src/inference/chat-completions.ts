// TextSampler over an OpenAI-compatible `POST /v1/chat/completions`: messages in, text out. For
// evaluating endpoints that cannot return tokens (hosted APIs); never trainable.
//
// Sends model, messages, temperature, top_p, max_tokens, stop (omitted when empty: some providers
// reject an empty list), seed; reads choices[0].message.content and finish_reason ("length" → length,
// "content_filter" → abort, anything else — "stop", "tool_calls" — → stop).
import { z } from "zod";
import { HttpTransport, type SamplerOptions } from "./http-transport.ts";
import { ServedModel } from "./served-model.ts";
import type { ChatGenerateRequest, ChatGenerateResult, FinishReason, TextSampler } from "./types.ts";

const PATH = "/v1/chat/completions";

const chatCompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

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
      body: {
        model,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        temperature: s.temperature,
        top_p: s.top_p,
        max_tokens: s.max_tokens,
        ...(s.stop.length > 0 && { stop: s.stop }),
        seed: s.seed,
      },
      schema: chatCompletionSchema,
      ...(request.signal !== undefined && { signal: request.signal }),
    });
    const choice = data.choices[0]!;
    return {
      text: choice.message.content ?? "",
      finishReason: chatFinishReason(choice.finish_reason),
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
