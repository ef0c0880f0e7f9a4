// TokenSampler over the Tinker sampling endpoint (`asample` + its future): token ids in, the sampled
// ids and their logprobs out, from the sampler weights the training loop saved last. The rollout engine
// takes it like the vLLM/SGLang samplers, so multi-turn tool rollouts sample from the policy as it is
// being trained. `weightVersion` on every answer is the training step of those weights.
import {
  checkTokenLogprobs,
  type GenerateRequest,
  type GenerateResult,
  InferenceError,
  type TokenSampler,
} from "@rlfactory/rollout";
import { TinkerApiError } from "./errors.ts";
import type { TinkerClient } from "./tinker-client.ts";
import { TINKER_PATHS, type TinkerSamplingParams } from "./tinker-schema.ts";

export interface TinkerSamplerWeights {
  /** The tinker:// path save_weights_for_sampler answered. */
  path: string;
  /** Optimizer steps applied to these weights (the policy version trajectories record). */
  version: number;
}

export interface TinkerSamplerOptions {
  /**
   * Stop token ids sent when a request has no stop strings (the API takes strings or ids, never
   * both): usually the tokenizer's end-of-turn ids, so a turn ends at `<|im_end|>` on every server.
   */
  stopTokenIds?: readonly number[];
}

export class TinkerSampler implements TokenSampler {
  readonly trainable = true as const;
  readonly kind = "tinker";
  readonly #client: TinkerClient;
  readonly #stopTokenIds: number[];
  #weights: TinkerSamplerWeights | undefined;

  constructor(client: TinkerClient, options: TinkerSamplerOptions = {}) {
    this.#client = client;
    this.#stopTokenIds = [...(options.stopTokenIds ?? [])];
  }

  /** The weights requests sample from from now on (requests already sent keep theirs). */
  setWeights(weights: TinkerSamplerWeights): void {
    this.#weights = { ...weights };
  }

  get weights(): TinkerSamplerWeights | undefined {
    return this.#weights;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const weights = this.#weights;
    if (weights === undefined) {
      throw new InferenceError("UNAVAILABLE", "no sampler weights yet: save_weights_for_sampler comes first");
    }
    const s = request.sampling;
    if (s.min_p !== undefined || s.repetition_penalty !== undefined) {
      throw new InferenceError(
        "HTTP_ERROR",
        "the Tinker sampling API has no min_p or repetition_penalty: remove them from rollout.sampling",
      );
    }
    const stop = s.stop.length > 0 ? [...s.stop] : this.#stopTokenIds.length > 0 ? this.#stopTokenIds : null;
    const sampling: TinkerSamplingParams = {
      max_tokens: s.max_tokens,
      temperature: s.temperature,
      top_p: s.top_p,
      top_k: s.top_k ?? -1,
      ...(s.seed === undefined ? {} : { seed: s.seed }),
      ...(stop === null ? {} : { stop }),
    };
    const where = `${this.#client.baseUrl}${TINKER_PATHS.asample}`;
    let output: Awaited<ReturnType<TinkerClient["sample"]>>;
    try {
      output = await this.#client.sample(
        {
          num_samples: 1,
          prompt: { chunks: [{ type: "encoded_text", tokens: [...request.promptIds] }] },
          sampling_params: sampling,
          model_path: weights.path,
        },
        request.signal,
      );
    } catch (e) {
      throw toInferenceError(e);
    }
    const sequence = output.sequences[0]!;
    if (!sequence.logprobs) {
      throw new InferenceError("BAD_RESPONSE", `${where} returned sequences[0] without logprobs`);
    }
    const ids = sequence.tokens;
    return {
      ids,
      logprobs: checkTokenLogprobs(ids, sequence.logprobs, where),
      finishReason: sequence.stop_reason,
      matchedStop: null,
      weightVersion: weights.version,
      server: this.#client.baseUrl,
      latencyMs: performance.now() - started,
    };
  }

  /** The client belongs to the training loop, which closes it. */
  async close(): Promise<void> {}
}

function toInferenceError(e: unknown): InferenceError {
  if (!(e instanceof TinkerApiError)) {
    return new InferenceError("UNAVAILABLE", (e as Error).message ?? String(e), { cause: e });
  }
  // the codes are the same but for a failed future, which is the server refusing the request
  const code: InferenceError["code"] = e.code === "REQUEST_FAILED" ? "HTTP_ERROR" : e.code;
  return new InferenceError(code, e.message, {
    cause: e,
    ...(e.status === undefined ? {} : { status: e.status }),
  });
}
