// TokenSampler over SGLang's native `POST /generate`, token ids in and out.
//
// Wire names checked against SGLang's source:
//   request   `managers/io_struct.py` GenerateReqInput: input_ids, sampling_params, return_logprob;
//             `sampling/sampling_params.py` SamplingParams: max_new_tokens, temperature, top_p, top_k
//             (-1 = whole vocabulary), min_p, stop, no_stop_trim (keep the stop string in the output),
//             skip_special_tokens, repetition_penalty, sampling_seed
//   response  `managers/tokenizer_manager.py`: output_ids, meta_info.output_token_logprobs as
//             [logprob, token_id, text | null] triples, meta_info.finish_reason
//             ({type: "stop", matched} | {type: "length", length} | {type: "abort", message}), and
//             meta_info.weight_version (`utils/weight_versions.py`)
//   images    `image_data`: one data URL per image of a vision-language prompt, in the order of their
//             placeholder spans in input_ids (GenerateReqInput.image_data)
// The triples' ids must equal output_ids one for one: a mismatch is BAD_RESPONSE.
import type { LogprobsKind } from "@rlfactory/contracts";
import { z } from "zod";
import { toFinishReason } from "./finish-reason.ts";
import { HttpTransport, type SamplerOptions } from "./http-transport.ts";
import { PromptJson } from "./prompt-json.ts";
import { checkTokenLogprobs } from "./token-logprobs.ts";
import {
  type GenerateRequest,
  type GenerateResult,
  InferenceError,
  imageDataUrl,
  type TokenSampler,
} from "./types.ts";

const PATH = "/generate";

const tokenId = z.number().int().nonnegative();

const generateSchema = z.looseObject({
  output_ids: z.array(tokenId),
  meta_info: z.looseObject({
    finish_reason: z
      .looseObject({
        type: z.string(),
        matched: z.union([z.string(), z.number(), z.array(z.number())]).nullish(),
        message: z.string().nullish(),
      })
      .nullish(),
    output_token_logprobs: z.array(z.tuple([z.number().nullable(), tokenId], z.unknown())).nullish(),
    weight_version: z.union([z.string(), z.number()]).nullish(),
  }),
});

type Generated = z.infer<typeof generateSchema>;

const isTokenId = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= 0;
const isNullish = (x: unknown): x is null | undefined => x === null || x === undefined;
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** generateSchema without zod, for the shape SGLang sends (a body it rejects goes to the schema). */
function isGenerated(json: unknown): json is Generated {
  if (!isObject(json) || !Array.isArray(json.output_ids)) return false;
  for (const id of json.output_ids) if (!isTokenId(id)) return false;
  const meta = json.meta_info;
  if (!isObject(meta)) return false;
  const fr = meta.finish_reason;
  if (!isNullish(fr)) {
    if (!isObject(fr) || typeof fr.type !== "string") return false;
    const m = fr.matched;
    if (!isNullish(m) && typeof m !== "string" && typeof m !== "number") {
      if (!Array.isArray(m) || m.some((x) => typeof x !== "number")) return false;
    }
    if (!isNullish(fr.message) && typeof fr.message !== "string") return false;
  }
  const lps = meta.output_token_logprobs;
  if (!isNullish(lps)) {
    if (!Array.isArray(lps)) return false;
    for (const e of lps) {
      if (!Array.isArray(e) || e.length < 2) return false;
      if (e[0] !== null && typeof e[0] !== "number") return false;
      if (!isTokenId(e[1])) return false;
    }
  }
  const wv = meta.weight_version;
  if (!isNullish(wv) && typeof wv !== "string" && typeof wv !== "number") return false;
  return true;
}

/** The request body of one generation, as an object (what `PromptJson#body` writes around `generateRequestEnds`). */
export function generateRequest(request: GenerateRequest): Record<string, unknown> {
  return { input_ids: request.promptIds, ...otherFields(request) };
}

/**
 * What comes before and after the prompt's JSON in `JSON.stringify(generateRequest(request))`:
 * `PromptJson#body` writes the prompt between them (built incrementally, as the prompt grows turn by turn).
 */
export function generateRequestEnds(request: GenerateRequest): { head: string; tail: string } {
  return { head: `{"input_ids":`, tail: `,${JSON.stringify(otherFields(request)).slice(1)}` };
}

function otherFields(request: GenerateRequest) {
  const s = request.sampling;
  return {
    sampling_params: {
      max_new_tokens: s.max_tokens,
      temperature: s.temperature,
      top_p: s.top_p,
      top_k: s.top_k,
      min_p: s.min_p,
      stop: s.stop,
      no_stop_trim: true,
      skip_special_tokens: false,
      repetition_penalty: s.repetition_penalty,
      sampling_seed: s.seed,
    },
    return_logprob: true,
    stream: false,
    ...(request.images !== undefined && request.images.length > 0
      ? { image_data: request.images.map(imageDataUrl) }
      : {}),
  };
}

export class SglangSampler implements TokenSampler {
  readonly trainable = true as const;
  readonly kind = "sglang";
  /**
   * SGLang returns logprobs after temperature (`processed`) unless its server runs with
   * `SGLANG_RETURN_ORIGINAL_LOGPROB=1` (then `raw`: declare it in `inference.logprobs_mode`).
   */
  readonly logprobsKind: LogprobsKind;
  readonly transport: HttpTransport;
  readonly #promptJson = new PromptJson();

  constructor(options: SamplerOptions) {
    this.transport = new HttpTransport(options);
    this.logprobsKind = options.logprobsKind ?? "processed";
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const { head, tail } = generateRequestEnds(request);
    const { data, server } = await this.transport.call({
      method: "POST",
      path: PATH,
      bodyBytes: this.#promptJson.body(request.sessionId, request.promptIds, head, tail),
      schema: generateSchema,
      check: isGenerated,
      ...(request.sessionId !== undefined && { sessionId: request.sessionId }),
      ...(request.signal !== undefined && { signal: request.signal }),
    });
    const where = `${server}${PATH}`;
    const ids = data.output_ids;
    const meta = data.meta_info;
    if (!meta.output_token_logprobs) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${where} returned no meta_info.output_token_logprobs despite return_logprob: true`,
      );
    }
    const triples = meta.output_token_logprobs;
    const logprobs = checkTokenLogprobs(
      ids,
      triples.map((t) => t[0]),
      where,
    );
    const mismatch = triples.findIndex((t, i) => t[1] !== ids[i]);
    if (mismatch >= 0) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${where} returned output_token_logprobs[${mismatch}] for token id ${triples[mismatch]![1]} ` +
          `but output_ids[${mismatch}] is ${ids[mismatch]}`,
      );
    }
    const finish = meta.finish_reason;
    const matched = finish?.matched;
    return {
      ids,
      logprobs,
      finishReason: toFinishReason(finish?.type, where),
      matchedStop: Array.isArray(matched) ? (matched.at(-1) ?? null) : (matched ?? null),
      weightVersion: meta.weight_version ?? null,
      server,
      latencyMs: performance.now() - started,
    };
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
