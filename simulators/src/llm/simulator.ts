// The simulated model, protocol-neutral: prompt ids and sampling parameters in; sampled ids, text,
// finish reason and logprobs out. Decodes the prompt, lets the policy write the turn, applies the engine's
// stop rules (generation.ts) and draws logprobs (logprobs.ts). Pure given (seed, request): the same
// request with the same seed gives the same output.

import { hash32, rngStream } from "@rlfactory/kit";
import type { ModelTokenizer } from "@rlfactory/rollout";
import { readConversation } from "./conversation.ts";
import { badRequest } from "./errors.ts";
import { type Generated, type GenerationLimits, generate } from "./generation.ts";
import { labelImageSpans, type SimImage } from "./image-inputs.ts";
import { type LogprobModel, type SimLogprobsMode, sampledLogprobs } from "./logprobs.ts";
import type { Policy, PolicyOptions } from "./policies/policy.ts";

/** One generate request in engine-neutral terms (each protocol maps its fields onto these). */
export interface SimRequest {
  promptIds: readonly number[];
  temperature: number;
  top_p: number;
  /** Absent, 0 or -1: no top-k. */
  top_k?: number;
  max_tokens: number;
  stop: string[];
  /** Per-request seed; absent: the server draws one (like an engine's global generator). */
  seed?: number;
  limits: Omit<GenerationLimits, "maxTokens" | "stop">;
  /** The request's images (vLLM `multi_modal_data.image`, SGLang `image_data`), checked against the prompt. */
  images?: SimImage[];
}

export interface Simulation extends Generated {
  /** One per id. */
  logprobs: number[];
  logprobModel: LogprobModel;
}

export interface Simulator {
  readonly tokenizer: ModelTokenizer;
  readonly policy: Policy;
  /** Rejects (400) prompt ids outside the vocabulary. */
  validate(request: SimRequest): void;
  /** `fallbackSeed` is used when the request carries no seed. */
  run(request: SimRequest, fallbackSeed: number): Simulation;
}

export function createSimulator(deps: {
  tokenizer: ModelTokenizer;
  policy: Policy;
  policyOptions: PolicyOptions;
  /** Which logprobs to return (default `processed`). */
  logprobsMode?: SimLogprobsMode;
}): Simulator {
  const { tokenizer, policy, policyOptions } = deps;
  const mode = deps.logprobsMode ?? "processed";
  return {
    tokenizer,
    policy,
    validate(request) {
      checkPromptIds(request.promptIds, tokenizer.vocabSize);
    },
    run(request, fallbackSeed) {
      checkPromptIds(request.promptIds, tokenizer.vocabSize);
      const seed = request.seed ?? fallbackSeed;
      const greedy = request.temperature === 0 || request.top_k === 1;
      const temperature = greedy ? 0 : request.temperature;
      const requestKey = hash32(
        request.promptIds,
        request.temperature,
        request.top_p,
        request.top_k ?? -1,
        request.max_tokens,
        request.stop.join("\u0000"),
      );
      // each image span reads as its image's label: the policy answers from what it was sent
      const conversation = readConversation(
        labelImageSpans(tokenizer.decode(request.promptIds), request.images ?? []),
      );
      const turn = policy.respond({
        conversation,
        options: policyOptions,
        random: rngStream(hash32("policy", seed, requestKey)),
        temperature,
        maxTokens: request.max_tokens,
      });
      const generated = generate(tokenizer, turn, {
        ...request.limits,
        maxTokens: request.max_tokens,
        stop: request.stop,
      });
      const logprobModel = { seed, requestKey, temperature };
      return {
        ...generated,
        logprobs: sampledLogprobs(logprobModel, generated.ids.length, mode),
        logprobModel,
      };
    },
  };
}

function checkPromptIds(ids: readonly number[], vocabSize: number): void {
  if (ids.length === 0) throw badRequest("the prompt is empty", "prompt");
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      throw badRequest(`token id ${id} is out of vocabulary (vocabulary size ${vocabSize})`, "prompt");
    }
  }
}
