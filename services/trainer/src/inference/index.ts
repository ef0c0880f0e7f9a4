// Inference clients: token-in/token-out samplers over vLLM and SGLang, a text sampler over OpenAI chat
// completions, their shared transport (server pool, retries, timeouts, concurrency limit) and config.
export { ChatCompletionsSampler } from "./chat-completions.ts";
export {
  type HttpAnswer,
  type HttpCall,
  HttpTransport,
  type RetryEvent,
  type SamplerOptions,
  type TransportOptions,
} from "./http-transport.ts";
export {
  createSampler,
  type InferenceConfig,
  type InferenceConfigInput,
  inferenceConfigSchema,
  parseInferenceConfig,
} from "./sampler-config.ts";
export {
  type InferenceServer,
  normaliseServerUrl,
  ServerPool,
  type ServerPoolOptions,
  type ServerStatus,
} from "./server-pool.ts";
export { SglangSampler } from "./sglang.ts";
export { checkTokenLogprobs } from "./token-logprobs.ts";
export * from "./types.ts";
export { VllmSampler } from "./vllm.ts";
