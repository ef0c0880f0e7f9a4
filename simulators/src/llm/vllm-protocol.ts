// vLLM's OpenAI-compatible `POST /v1/completions` (non-streaming, n = 1): the request schema, its mapping
// onto a SimRequest, and the response in vLLM's field names (`CompletionResponse`,
// `CompletionResponseChoice` with `stop_reason`, `token_ids`, `prompt_token_ids`; `CompletionLogProbs`).
// Also `GET /v1/models`. Unknown request fields are accepted and ignored, as vLLM does.

import type { ModelTokenizer } from "@rlfactory/rollout";
import { z } from "zod";
import { badRequest } from "./errors.ts";
import { requestImages } from "./image-inputs.ts";
import { alternatives } from "./logprobs.ts";
import type { SimRequest, Simulation } from "./simulator.ts";

/** vLLM's default `max_tokens` for completions. */
export const VLLM_DEFAULT_MAX_TOKENS = 16;

const unsupported = (what: string) => ({ error: `${what} is not supported by the simulated LLM` });

export const stopSchema = z.union([z.string().min(1), z.array(z.string().min(1))]).nullish();

export const completionRequestSchema = z.looseObject({
  model: z.string().nullish(),
  prompt: z.union([z.array(z.int().min(0)).min(1), z.string().min(1)], {
    error: "prompt must be a non-empty list of token ids or a non-empty string (batches are not supported)",
  }),
  max_tokens: z.int().positive().nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(-1).nullish(),
  seed: z.int().nullish(),
  stop: stopSchema,
  stop_token_ids: z.array(z.int().min(0)).nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  /** Number of top logprobs per position; 0 still fills `token_logprobs`. */
  logprobs: z.int().min(0).max(20).nullish(),
  return_token_ids: z.boolean().nullish(),
  n: z.literal(1, unsupported("n > 1")).nullish(),
  stream: z.literal(false, unsupported("stream")).nullish(),
  echo: z.literal(false, unsupported("echo")).nullish(),
  ignore_eos: z.literal(false, unsupported("ignore_eos")).nullish(),
  /** A vision-language prompt's images beside the token prompt (image-inputs.ts). */
  multi_modal_data: z.looseObject({ image: z.array(z.string()).nullish() }).nullish(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export function stopList(stop: string | string[] | null | undefined): string[] {
  if (stop === null || stop === undefined) return [];
  return typeof stop === "string" ? [stop] : stop;
}

/** vLLM rejects a request whose prompt plus `max_tokens` exceeds the context. */
export function checkContextLength(promptTokens: number, maxTokens: number, maxModelLen: number): void {
  if (promptTokens + maxTokens > maxModelLen) {
    throw badRequest(
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
        `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). ` +
        "Please reduce the length of the messages or completion.",
      "max_tokens",
    );
  }
}

export function completionSimRequest(
  body: CompletionRequest,
  tokenizer: ModelTokenizer,
  maxModelLen: number,
): SimRequest {
  const promptIds = typeof body.prompt === "string" ? tokenizer.encode(body.prompt) : body.prompt;
  const maxTokens = body.max_tokens ?? VLLM_DEFAULT_MAX_TOKENS;
  checkContextLength(promptIds.length, maxTokens, maxModelLen);
  const images = requestImages(promptIds, body.multi_modal_data?.image, "multi_modal_data.image", tokenizer);
  return { ...openAiSimRequest(body, promptIds, maxTokens), images };
}

/** The sampling fields vLLM's OpenAI-compatible routes share (completions and chat). */
export type OpenAiSamplingFields = Pick<
  CompletionRequest,
  | "temperature"
  | "top_p"
  | "top_k"
  | "stop"
  | "seed"
  | "stop_token_ids"
  | "include_stop_str_in_output"
  | "skip_special_tokens"
>;

/** A simulated request from those fields, with vLLM's defaults. */
export function openAiSimRequest(
  body: OpenAiSamplingFields,
  promptIds: number[],
  maxTokens: number,
): SimRequest {
  return {
    promptIds,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    ...(body.top_k === null || body.top_k === undefined ? {} : { top_k: body.top_k }),
    max_tokens: maxTokens,
    stop: stopList(body.stop),
    ...(body.seed === null || body.seed === undefined ? {} : { seed: body.seed }),
    limits: {
      stopTokenIds: body.stop_token_ids ?? [],
      includeStop: body.include_stop_str_in_output ?? false,
      skipSpecialTokens: body.skip_special_tokens ?? true,
      stopStringWinsAtCap: true,
    },
  };
}

export interface CompletionLogProbs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  text_offset: number[];
}

/** vLLM's `CompletionLogProbs`: the sampled token first in each `top_logprobs` map, then `k` alternatives. */
export function completionLogprobs(
  sim: Simulation,
  k: number,
  tokenizer: ModelTokenizer,
): CompletionLogProbs {
  const tokens = sim.ids.map((id) => tokenizer.decode([id]));
  const text_offset: number[] = [];
  let offset = 0;
  for (const t of tokens) {
    text_offset.push(offset);
    offset += t.length;
  }
  const top_logprobs = sim.ids.map((id, i) => {
    const logprob = sim.logprobs[i]!;
    const top: Record<string, number> = { [tokens[i]!]: logprob };
    for (const alt of alternatives(sim.logprobModel, i, { id, logprob }, k, tokenizer.vocabSize)) {
      const text = tokenizer.decode([alt.id]);
      if (!(text in top)) top[text] = alt.logprob;
    }
    return top;
  });
  return { tokens, token_logprobs: sim.logprobs, top_logprobs, text_offset };
}

export function completionResponse(args: {
  id: string;
  model: string;
  body: CompletionRequest;
  request: SimRequest;
  sim: Simulation;
  tokenizer: ModelTokenizer;
}) {
  const { body, request, sim } = args;
  const withIds = body.return_token_ids === true;
  const logprobs =
    body.logprobs === null || body.logprobs === undefined
      ? null
      : completionLogprobs(sim, body.logprobs, args.tokenizer);
  return {
    id: args.id,
    object: "text_completion" as const,
    created: Math.floor(Date.now() / 1000),
    model: args.model,
    choices: [
      {
        index: 0,
        text: sim.text,
        logprobs,
        finish_reason: sim.finishReason,
        // vLLM: the stop string or stop token id; null for EOS and for length
        stop_reason: sim.matchedEos ? null : sim.matched,
        token_ids: withIds ? sim.ids : null,
        prompt_logprobs: null,
        prompt_token_ids: withIds ? [...request.promptIds] : null,
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: {
      prompt_tokens: request.promptIds.length,
      total_tokens: request.promptIds.length + sim.ids.length,
      completion_tokens: sim.ids.length,
      prompt_tokens_details: null,
    },
    kv_transfer_params: null,
  };
}

/** `GET /v1/models` (vLLM's `ModelList` / `ModelCard`; `root` is the path the model was loaded from). */
export function modelList(model: string, maxModelLen: number, root: string = model) {
  return {
    object: "list" as const,
    data: [
      {
        id: model,
        object: "model" as const,
        created: Math.floor(Date.now() / 1000),
        owned_by: "rlfactory-simulator",
        root,
        parent: null,
        max_model_len: maxModelLen,
        permission: [],
      },
    ],
  };
}

export const tokenizeRequestSchema = z.looseObject({
  prompt: z.string(),
  add_special_tokens: z.boolean().nullish(),
});

/**
 * `POST /tokenize` (prompt form), as vLLM's and SGLang's: `{model, prompt, add_special_tokens}` →
 * `{count, max_model_len, tokens, token_strs}`.
 */
export function tokenizeResponse(
  body: z.infer<typeof tokenizeRequestSchema>,
  tokenizer: ModelTokenizer,
  maxModelLen: number,
) {
  const tokens = tokenizer.encode(body.prompt, { addSpecialTokens: body.add_special_tokens ?? true });
  return { count: tokens.length, max_model_len: maxModelLen, tokens, token_strs: null };
}

export const detokenizeRequestSchema = z.looseObject({ tokens: z.array(z.int().min(0)) });

/** `POST /detokenize`. */
export function detokenizeResponse(body: z.infer<typeof detokenizeRequestSchema>, tokenizer: ModelTokenizer) {
  for (const id of body.tokens) {
    if (id >= tokenizer.vocabSize) throw badRequest(`token id ${id} is out of vocabulary`, "tokens");
  }
  return { prompt: tokenizer.decode(body.tokens) };
}
