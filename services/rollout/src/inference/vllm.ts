// TokenSampler over vLLM's OpenAI-compatible `POST /v1/completions`, token ids in and out.
//
// Wire names checked against vLLM's `vllm/entrypoints/openai/protocol.py` (CompletionRequest,
// CompletionResponseChoice, CompletionLogProbs) and `serving_completion.py`:
//   request   prompt: int[] (a token prompt), return_token_ids (the choice then carries `token_ids`),
//             logprobs: 0 (the sampled token's logprob only), include_stop_str_in_output,
//             skip_special_tokens, max_tokens, temperature, top_p, top_k, min_p, seed,
//             repetition_penalty, stop, model
//   response  choices[0].token_ids, choices[0].logprobs.token_logprobs (float | null; vLLM clamps -inf
//             to -9999), finish_reason ("stop" | "length"), stop_reason (the stop string or token id,
//             null for EOS)
//   images    a vision-language prompt's images go beside the token prompt as
//             `multi_modal_data: {image: [data URLs]}`, the field vLLM's `TokensPrompt` takes
//             (`prompt_token_ids` + `multi_modal_data`); the prompt already holds each image's
//             placeholder tokens (the server's processor must count them as we do: docs/images.md)
// A server too old for `return_token_ids` ignores it and sends no `token_ids`: that is BAD_RESPONSE,
// never a silent re-tokenisation of the text.
import type { LogprobsKind } from "@rlfactory/contracts";
import { z } from "zod";
import { toFinishReason } from "./finish-reason.ts";
import { HttpTransport, type SamplerOptions } from "./http-transport.ts";
import { PromptJson } from "./prompt-json.ts";
import { ServedModel } from "./served-model.ts";
import { checkTokenLogprobs } from "./token-logprobs.ts";
import {
  type GenerateRequest,
  type GenerateResult,
  InferenceError,
  imageDataUrl,
  type TokenSampler,
} from "./types.ts";
import { unreadCutter } from "./unread-members.ts";

const PATH = "/v1/completions";

const tokenId = z.number().int().nonnegative();

const completionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        token_ids: z.array(tokenId).nullish(),
        logprobs: z.looseObject({ token_logprobs: z.array(z.number().nullable()) }).nullish(),
        finish_reason: z.string().nullish(),
        stop_reason: z.union([z.string(), z.number()]).nullish(),
      }),
    )
    .min(1),
});

type Completion = z.infer<typeof completionSchema>;

const isTokenIds = (x: unknown): boolean => {
  if (!Array.isArray(x)) return false;
  for (const id of x) if (!Number.isInteger(id) || id < 0) return false;
  return true;
};

const isNullish = (x: unknown): x is null | undefined => x === null || x === undefined;
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** completionSchema without zod, for the shape vLLM sends (a body it rejects goes to the schema). */
function isCompletion(json: unknown): json is Completion {
  if (!isObject(json)) return false;
  const choices = (json as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return false;
  for (const c of choices) {
    if (!isObject(c)) return false;
    const { token_ids, logprobs, finish_reason, stop_reason } = c as Record<string, unknown>;
    if (!isNullish(token_ids) && !isTokenIds(token_ids)) return false;
    if (!isNullish(logprobs)) {
      if (!isObject(logprobs)) return false;
      const lp = (logprobs as { token_logprobs?: unknown }).token_logprobs;
      if (!Array.isArray(lp)) return false;
      for (const x of lp) if (x !== null && typeof x !== "number") return false;
    }
    if (!isNullish(finish_reason) && typeof finish_reason !== "string") return false;
    if (!isNullish(stop_reason) && typeof stop_reason !== "string" && typeof stop_reason !== "number")
      return false;
  }
  return true;
}

/**
 * What the client never reads of an answer, cut before parsing in one pass (unread-members.ts): the
 * echoed prompt (`prompt_token_ids`, O(context) per turn), and of `logprobs` a string, an object and an
 * offset per token, and of `prompt_logprobs` an object per prompt token.
 */
const UNREAD = unreadCutter(
  ["prompt_token_ids"],
  ["tokens", "top_logprobs", "text_offset", "prompt_logprobs"],
);

/** The request body of one generation, as an object (what `PromptJson#body` writes around `completionRequestEnds`). */
export function completionRequest(model: string, request: GenerateRequest): Record<string, unknown> {
  return { model, prompt: request.promptIds, ...samplingFields(request) };
}

/**
 * What comes before and after the prompt's JSON in `JSON.stringify(completionRequest(model, request))`:
 * `PromptJson#body` writes the prompt between them (built incrementally, as the prompt grows turn by turn).
 */
export function completionRequestEnds(
  model: string,
  request: GenerateRequest,
): { head: string; tail: string } {
  const rest = JSON.stringify(samplingFields(request));
  return { head: `{"model":${JSON.stringify(model)},"prompt":`, tail: `,${rest.slice(1)}` };
}

function samplingFields(request: GenerateRequest) {
  const s = request.sampling;
  return {
    max_tokens: s.max_tokens,
    temperature: s.temperature,
    top_p: s.top_p,
    top_k: s.top_k,
    min_p: s.min_p,
    seed: s.seed,
    repetition_penalty: s.repetition_penalty,
    stop: s.stop,
    n: 1,
    stream: false,
    logprobs: 0,
    return_token_ids: true,
    include_stop_str_in_output: true,
    skip_special_tokens: false,
    ...(request.images !== undefined && request.images.length > 0
      ? { multi_modal_data: { image: request.images.map(imageDataUrl) } }
      : {}),
  };
}

export class VllmSampler implements TokenSampler {
  readonly trainable = true as const;
  readonly kind = "vllm";
  /** vLLM's default `--logprobs-mode raw_logprobs` unless the config says the servers run `processed_logprobs`. */
  readonly logprobsKind: LogprobsKind;
  readonly transport: HttpTransport;
  readonly #model: ServedModel;
  readonly #promptJson = new PromptJson();

  constructor(options: SamplerOptions) {
    this.transport = new HttpTransport(options);
    this.logprobsKind = options.logprobsKind ?? "raw";
    this.#model = new ServedModel(this.transport, options.model);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const model = await this.#model.get(request.signal);
    const { head, tail } = completionRequestEnds(model, request);
    const { data, server } = await this.transport.call({
      method: "POST",
      path: PATH,
      bodyBytes: this.#promptJson.body(request.sessionId, request.promptIds, head, tail),
      schema: completionSchema,
      check: isCompletion,
      unread: UNREAD,
      ...(request.sessionId !== undefined && { sessionId: request.sessionId }),
      ...(request.signal !== undefined && { signal: request.signal }),
    });
    const where = `${server}${PATH}`;
    const choice = data.choices[0]!;
    if (!choice.token_ids) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${where} returned no choices[0].token_ids: the server ignored return_token_ids (vLLM too old?)`,
      );
    }
    if (!choice.logprobs) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${where} returned no choices[0].logprobs despite logprobs: 0`,
      );
    }
    const ids = choice.token_ids;
    return {
      ids,
      logprobs: checkTokenLogprobs(ids, choice.logprobs.token_logprobs, where),
      finishReason: toFinishReason(choice.finish_reason, where),
      matchedStop: choice.stop_reason ?? null,
      weightVersion: null,
      server,
      latencyMs: performance.now() - started,
    };
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
