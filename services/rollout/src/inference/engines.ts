// The inference engine registry: the single source of the `inference.engine` names. The config's enum,
// the `InferenceEngineName` union and the sampler type `createSampler` returns for an engine derive from
// `ENGINES`. Adding a backend is its client file (a `TokenSampler`, or a `TextSampler` for text-only
// endpoints) plus one entry here, and its protocol in engine-contract.test.ts (which the typecheck then
// demands).
import { REQUEST_ENGINE_NAMES } from "@rlfactory/clients";
import { ChatCompletionsSampler } from "./chat-completions.ts";
import type { SamplerOptions } from "./http-transport.ts";
import { SglangSampler } from "./sglang.ts";
import type { TextSampler, TokenSampler } from "./types.ts";
import { VllmSampler } from "./vllm.ts";

/** One registered engine: a one-line summary, whether it returns tokens to train on, and its client. */
export interface InferenceEngineEntry {
  readonly summary: string;
  /** True for a `TokenSampler` (ids and logprobs: trainable); false for a text-only `TextSampler`. */
  readonly trainable: boolean;
  create(options: SamplerOptions): TokenSampler | TextSampler;
}

const ENGINES = {
  vllm: {
    summary: "vLLM's OpenAI-compatible POST /v1/completions: token ids in, ids and logprobs out",
    trainable: true,
    create: (options: SamplerOptions) => new VllmSampler(options),
  },
  sglang: {
    summary: "SGLang's native POST /generate: token ids in, ids, logprobs and weight_version out",
    trainable: true,
    create: (options: SamplerOptions) => new SglangSampler(options),
  },
  "chat-completions": {
    summary: "an OpenAI-compatible POST /v1/chat/completions: messages in, text out (evaluation only)",
    trainable: false,
    create: (options: SamplerOptions) => new ChatCompletionsSampler(options),
  },
} as const satisfies Record<string, InferenceEngineEntry>;

/** A registered engine's name (the config's `inference.engine`). */
export type InferenceEngineName = keyof typeof ENGINES;

/** The client an engine's entry builds. */
export type SamplerOf<E extends InferenceEngineName> = ReturnType<(typeof ENGINES)[E]["create"]>;

/** Every registered engine, by name (read-only). */
export const inferenceEngines: { readonly [E in InferenceEngineName]: (typeof ENGINES)[E] } =
  Object.freeze(ENGINES);

export const INFERENCE_ENGINE_NAMES = Object.freeze(Object.keys(ENGINES)) as readonly [
  InferenceEngineName,
  ...InferenceEngineName[],
];

/** An engine that returns token ids and logprobs (trainable): what a rollout request's own servers may run. */
export type TokenEngineName = {
  [E in InferenceEngineName]: (typeof ENGINES)[E]["trainable"] extends true ? E : never;
}[InferenceEngineName];

/** The token engines: a rollout request's wire vocabulary (@rlfactory/clients), which must name exactly the registry's trainable engines (engine-contract.test.ts). */
export const TOKEN_ENGINE_NAMES: readonly [TokenEngineName, ...TokenEngineName[]] = REQUEST_ENGINE_NAMES;
