// SGLang's native `POST /generate` (one prompt, non-streaming): `GenerateReqInput` with `text` or
// `input_ids` and `sampling_params`, and the response `{text, output_ids, meta_info}` where `meta_info`
// carries `finish_reason` (`{type: "stop", matched}` | `{type: "length", length}`), token counts,
// `weight_version`, `e2e_latency` and, with `return_logprob`, `output_token_logprobs` as
// `[logprob, token_id, text | null]` triples. Also `/get_model_info` and `/update_weight_version`.
// Unknown fields are accepted and ignored.

import type { ModelTokenizer } from "@rlfactory/rollout";
import { z } from "zod";
import { badRequest } from "./errors.ts";
import { requestImages } from "./image-inputs.ts";
import { alternatives } from "./logprobs.ts";
import type { SimRequest, Simulation } from "./simulator.ts";
import { stopList, stopSchema } from "./vllm-protocol.ts";

/** SGLang's default `max_new_tokens`. */
export const SGLANG_DEFAULT_MAX_NEW_TOKENS = 128;

const unsupported = (what: string) => ({ error: `${what} is not supported by the simulated LLM` });

export const sglangSamplingParamsSchema = z.looseObject({
  max_new_tokens: z.int().positive().nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(-1).nullish(),
  stop: stopSchema,
  stop_token_ids: z.array(z.int().min(0)).nullish(),
  no_stop_trim: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  /** SGLang's name for the per-request seed. */
  sampling_seed: z.int().nullish(),
  /** Accepted as an alias of `sampling_seed`. */
  seed: z.int().nullish(),
  n: z.literal(1, unsupported("n > 1")).nullish(),
  ignore_eos: z.literal(false, unsupported("ignore_eos")).nullish(),
});

export const generateRequestSchema = z
  .looseObject({
    rid: z.string().nullish(),
    text: z.string().min(1, "text must not be empty").nullish(),
    input_ids: z
      .array(z.int().min(0), { error: "input_ids must be a list of token ids (batches are not supported)" })
      .min(1, "input_ids must not be empty")
      .nullish(),
    sampling_params: sglangSamplingParamsSchema.nullish(),
    return_logprob: z.boolean().nullish(),
    top_logprobs_num: z.int().min(0).max(20).nullish(),
    return_text_in_logprobs: z.boolean().nullish(),
    stream: z.literal(false, unsupported("stream")).nullish(),
    /** A vision-language prompt's images: data URLs, one per placeholder span (image-inputs.ts). */
    image_data: z.union([z.string(), z.array(z.string())]).nullish(),
  })
  .refine((b) => (b.text ? 1 : 0) + (b.input_ids ? 1 : 0) === 1, {
    error: "give exactly one of text or input_ids",
    path: ["input_ids"],
  });
export type GenerateRequest = z.infer<typeof generateRequestSchema>;

export const updateWeightVersionSchema = z.looseObject({
  new_version: z.string().min(1),
  abort_all_requests: z.boolean().optional(),
});

export function generateSimRequest(
  body: GenerateRequest,
  tokenizer: ModelTokenizer,
  maxModelLen: number,
): SimRequest {
  const promptIds = body.input_ids ?? tokenizer.encode(body.text ?? "");
  // SGLang rejects an input as long as the context and clamps max_new_tokens to what is left.
  if (promptIds.length >= maxModelLen) {
    throw badRequest(
      `The input (${promptIds.length} tokens) is longer than the model's context length (${maxModelLen} tokens).`,
      "input_ids",
    );
  }
  const sp = body.sampling_params ?? {};
  const seed = sp.sampling_seed ?? sp.seed;
  return {
    promptIds,
    temperature: sp.temperature ?? 1,
    top_p: sp.top_p ?? 1,
    ...(sp.top_k === null || sp.top_k === undefined ? {} : { top_k: sp.top_k }),
    max_tokens: Math.min(sp.max_new_tokens ?? SGLANG_DEFAULT_MAX_NEW_TOKENS, maxModelLen - promptIds.length),
    stop: stopList(sp.stop),
    ...(seed === null || seed === undefined ? {} : { seed }),
    limits: {
      stopTokenIds: sp.stop_token_ids ?? [],
      includeStop: sp.no_stop_trim ?? false,
      skipSpecialTokens: sp.skip_special_tokens ?? true,
      stopStringWinsAtCap: false,
    },
    images: requestImages(
      promptIds,
      typeof body.image_data === "string" ? [body.image_data] : body.image_data,
      "image_data",
      tokenizer,
    ),
  };
}

type LogprobTriple = [number, number, string | null];

export function generateResponse(args: {
  id: string;
  body: GenerateRequest;
  request: SimRequest;
  sim: Simulation;
  tokenizer: ModelTokenizer;
  weightVersion: string;
  e2eLatencyS: number;
}) {
  const { body, request, sim, tokenizer } = args;
  const withText = body.return_text_in_logprobs === true;
  const triple = (logprob: number, id: number): LogprobTriple => [
    logprob,
    id,
    withText ? tokenizer.decode([id]) : null,
  ];
  const logprobs: Record<string, unknown> = {};
  if (body.return_logprob === true) {
    logprobs.output_token_logprobs = sim.ids.map((id, i) => triple(sim.logprobs[i]!, id));
    const k = body.top_logprobs_num ?? 0;
    if (k > 0) {
      logprobs.output_top_logprobs = sim.ids.map((id, i) => {
        const logprob = sim.logprobs[i]!;
        const alts = alternatives(sim.logprobModel, i, { id, logprob }, k - 1, tokenizer.vocabSize);
        return [triple(logprob, id), ...alts.map((a) => triple(a.logprob, a.id))];
      });
    }
  }
  return {
    text: sim.text,
    output_ids: sim.ids,
    meta_info: {
      id: args.id,
      finish_reason:
        sim.finishReason === "length"
          ? { type: "length" as const, length: request.max_tokens }
          : { type: "stop" as const, matched: sim.matched },
      prompt_tokens: request.promptIds.length,
      weight_version: args.weightVersion,
      completion_tokens: sim.ids.length,
      cached_tokens: 0,
      ...logprobs,
      e2e_latency: args.e2eLatencyS,
    },
  };
}

/** `GET /get_model_info`. */
export function modelInfo(model: string, tokenizerSource: string, weightVersion: string) {
  return {
    model_path: model,
    tokenizer_path: tokenizerSource,
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: weightVersion,
  };
}
