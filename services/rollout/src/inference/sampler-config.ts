// The `inference` block of a run's config, parsed once, and the factory that turns it into a sampler.
//
//   engine: vllm | sglang | chat-completions        # the names of the engine registry (engines.ts)
//   urls: [http://gpu-0:8000, http://gpu-1:8000]   # or `url: http://gpu-0:8000`
//   model: Qwen/Qwen3-4B                            # optional: else the first id of GET /v1/models
//   api_key_env: OPENAI_API_KEY                     # optional: Authorization: Bearer $OPENAI_API_KEY
//                                                   #   (or api_key: the key itself)
//   timeout_ms: 120000   retries: 2   max_concurrency: 256
//   cooldown_ms: 5000    max_sessions: 100000       # server ejection; sticky-session memory
//   max_response_bytes: 33554432                    # largest body read from a server (RESPONSE_TOO_LARGE)
//   logprobs_mode: raw | processed                 # what the servers' logprobs are (default: the
//                                                   #   engine's: vllm raw, sglang processed)

import { serverUrlSchema } from "@rlfactory/clients";
import { LOGPROBS_KINDS } from "@rlfactory/contracts";
import { z } from "zod";
import {
  INFERENCE_ENGINE_NAMES,
  type InferenceEngineName,
  inferenceEngines,
  type SamplerOf,
} from "./engines.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, type SamplerOptions } from "./http-transport.ts";

export const inferenceConfigSchema = z
  .strictObject({
    engine: z.enum(INFERENCE_ENGINE_NAMES),
    urls: z.array(serverUrlSchema).min(1, "urls needs at least one server URL").optional(),
    /** A single server: shorthand for `urls: [url]`. */
    url: serverUrlSchema.optional(),
    model: z.string().min(1).optional(),
    api_key: z.string().min(1).optional(),
    /** Name of the environment variable holding the API key (read when the sampler is created). */
    api_key_env: z.string().min(1).optional(),
    timeout_ms: z.number().int().positive().default(120_000),
    retries: z.number().int().min(0).default(2),
    max_concurrency: z.number().int().positive().default(256),
    cooldown_ms: z.number().int().min(0).default(5_000),
    max_sessions: z.number().int().positive().default(100_000),
    /** Largest response body read from a server (the request's own servers too); beyond it RESPONSE_TOO_LARGE. */
    max_response_bytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
    /**
     * Which logprobs the servers return, recorded on every trajectory (`logprobs_kind`): `raw`
     * (temperature 1: vLLM's default `--logprobs-mode raw_logprobs`, SGLang with
     * `SGLANG_RETURN_ORIGINAL_LOGPROB=1`) or `processed` (after temperature: vLLM
     * `--logprobs-mode processed_logprobs`, SGLang's default). No server reports it: declare what yours
     * run. Omitted: the engine's default (vllm `raw`, sglang `processed`).
     */
    logprobs_mode: z.enum(LOGPROBS_KINDS).optional(),
  })
  .superRefine((c, ctx) => {
    if ((c.url === undefined) === (c.urls === undefined)) {
      ctx.addIssue({ code: "custom", path: ["urls"], message: "give exactly one of `url` and `urls`" });
    }
    if (c.api_key !== undefined && c.api_key_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["api_key"],
        message: "give at most one of `api_key` and `api_key_env`",
      });
    }
    const all = c.urls ?? [];
    const duplicate = all.find((u, i) => all.indexOf(u) !== i);
    if (duplicate) ctx.addIssue({ code: "custom", path: ["urls"], message: `${duplicate} is listed twice` });
  })
  .transform(({ url, urls, ...rest }) => ({ ...rest, urls: urls ?? [url!] }));

/** The block as written (defaults optional, `url` or `urls`). */
export type InferenceConfigInput = z.input<typeof inferenceConfigSchema>;
/** The block after parsing: defaults filled, `urls` normalised. */
export type InferenceConfig = z.output<typeof inferenceConfigSchema>;

/** Parses the block, with one readable error listing every problem. */
export function parseInferenceConfig(raw: unknown): InferenceConfig {
  const parsed = inferenceConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid inference config:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The client of the config's engine (a `TokenSampler` for vLLM and SGLang, a `TextSampler` for chat). */
export function createSampler<E extends InferenceEngineName>(
  config: InferenceConfigInput & { engine: E },
): SamplerOf<E> {
  const c = parseInferenceConfig(config);
  const apiKey = c.api_key ?? (c.api_key_env === undefined ? undefined : process.env[c.api_key_env]);
  if (c.api_key_env !== undefined && !apiKey) {
    throw new Error(`inference.api_key_env: environment variable ${c.api_key_env} is not set`);
  }
  const options: SamplerOptions = {
    urls: c.urls,
    timeoutMs: c.timeout_ms,
    retries: c.retries,
    maxConcurrency: c.max_concurrency,
    cooldownMs: c.cooldown_ms,
    maxSessions: c.max_sessions,
    maxResponseBytes: c.max_response_bytes,
    ...(c.model !== undefined && { model: c.model }),
    ...(apiKey !== undefined && { apiKey }),
    ...(c.logprobs_mode !== undefined && { logprobsKind: c.logprobs_mode }),
  };
  return inferenceEngines[c.engine].create(options) as SamplerOf<E>;
}
