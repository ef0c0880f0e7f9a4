// The simulated inference server: a test and load-testing fixture that speaks vLLM, SGLang and OpenAI
// chat wire protocols with a real tokenizer and scripted policies. It is never a model (see README.md).

export {
  CHATML_WITH_TOOLS_TEMPLATE,
  CHATML_WITHOUT_TOOLS_TEMPLATE,
  writeByteTokenizer,
} from "./byte-tokenizer.ts";
export type { Conversation } from "./conversation.ts";
export { readConversation, readPassages } from "./conversation.ts";
export type { LatencyOptionsInput } from "./latency-model.ts";
export { parseTurnMs } from "./latency-model.ts";
export { rawFromProcessed, type SimLogprobsMode } from "./logprobs.ts";
export type { PolicyOptionsInput } from "./policies/policy.ts";
export { describePolicies, SIMULATED_POLICY_NAMES } from "./policies/registry.ts";
export type { Protocol, RecordedRequest, SimulatedLlm, SimulatedLlmOptions } from "./server.ts";
export { DEFAULT_MAX_MODEL_LEN, startSimulatedLlm } from "./server.ts";
