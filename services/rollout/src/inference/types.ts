// The contract between the rollout loop and an inference engine: token ids in, token ids and their
// logprobs out. vLLM (`/v1/completions`) and SGLang (`/generate`) clients implement `TokenSampler`;
// the chat-completions client for evaluation implements `TextSampler` and is never trainable.
import type { LogprobsKind } from "@rlfactory/contracts";
import { z } from "zod";

/** Sampling parameters of one request (engine-neutral names; each client maps them to its wire format). */
export const samplingParamsSchema = z.object({
  temperature: z.number().min(0).default(1),
  top_p: z.number().gt(0).max(1).default(1),
  /** -1 or absent: no top-k. */
  top_k: z.number().int().optional(),
  min_p: z.number().min(0).max(1).optional(),
  /** Cap on generated tokens of this turn. */
  max_tokens: z.number().int().positive(),
  /** Stop strings; the engine is asked to keep them in the output. */
  stop: z.array(z.string()).default([]),
  repetition_penalty: z.number().positive().optional(),
  /** Per-request seed (engines that support one). */
  seed: z.number().int().optional(),
});
export type SamplingParams = z.infer<typeof samplingParamsSchema>;

/** An image the prompt's placeholder tokens stand for, in the order of their spans in `promptIds`. */
export interface PromptImage {
  mimeType: string;
  data: Uint8Array;
}

export interface GenerateRequest {
  promptIds: readonly number[];
  /**
   * The images of a vision-language prompt, one per `<|vision_start|><|image_pad|>…<|vision_end|>` span
   * in `promptIds`, in order (vLLM `multi_modal_data`, SGLang `image_data`). Absent or empty: none.
   */
  images?: readonly PromptImage[];
  sampling: SamplingParams;
  /**
   * Session key for sticky routing (a trajectory id): its turns go to the same server while it is
   * healthy, so the server's prefix cache holds the conversation.
   */
  sessionId?: string;
  signal?: AbortSignal;
}

/** An image as a `data:` URL (what vLLM's and SGLang's image inputs take; no URL is fetched). */
export function imageDataUrl(image: PromptImage): string {
  return `data:${image.mimeType};base64,${Buffer.from(image.data).toString("base64")}`;
}

/** Why generation stopped: an end token or a stop string (`stop`), the token cap (`length`), or the engine aborted it. */
export type FinishReason = "stop" | "length" | "abort";

export interface GenerateResult {
  /** The sampled ids exactly as the engine returned them (an end token included when it stopped on one). */
  ids: number[];
  /** One logprob per id, from the engine (never recomputed). */
  logprobs: number[];
  finishReason: FinishReason;
  /** The stop string or token id that ended generation, when the engine says. */
  matchedStop?: string | number | null;
  /** Weight version the engine reported (SGLang `meta_info.weight_version`), else null. */
  weightVersion: string | number | null;
  /** Base URL of the server that answered. */
  server: string;
  /** Wall time of the request, retries included. */
  latencyMs: number;
}

export interface TokenSampler {
  readonly trainable: true;
  /** `vllm` or `sglang`. */
  readonly kind: string;
  /** Which logprobs its servers return (recorded on every trajectory); absent: unknown. */
  readonly logprobsKind?: LogprobsKind;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  close(): Promise<void>;
}

export interface ChatGenerateRequest {
  messages: readonly { role: string; content: string }[];
  sampling: SamplingParams;
  signal?: AbortSignal;
}

export interface ChatGenerateResult {
  text: string;
  finishReason: FinishReason;
  server: string;
  latencyMs: number;
}

/** An OpenAI chat-completions endpoint: text only, for evaluation; trajectories from it carry no ids to train on. */
export interface TextSampler {
  readonly trainable: false;
  readonly kind: "chat-completions";
  generate(request: ChatGenerateRequest): Promise<ChatGenerateResult>;
  close(): Promise<void>;
}

/** An inference failure the loop records on the trajectory (`status: failed`, reason = code + message). */
export class InferenceError extends Error {
  override name = "InferenceError";
  readonly code:
    | "TIMEOUT"
    | "HTTP_ERROR"
    | "BAD_RESPONSE"
    | "RESPONSE_TOO_LARGE"
    | "UNAVAILABLE"
    | "CANCELLED";
  readonly status: number | undefined;
  constructor(
    code: InferenceError["code"],
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }
}
