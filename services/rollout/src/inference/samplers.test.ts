// The three clients against the simulated LLM (vLLM, SGLang and chat wire protocols, real Qwen3
// tokenizer) over HTTP on 127.0.0.1: what they send, and what they make of the answers.

import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { ChatCompletionsSampler } from "./chat-completions.ts";
import { SglangSampler } from "./sglang.ts";
import { samplingParamsSchema } from "./types.ts";
import { VllmSampler } from "./vllm.ts";

const QUESTION = "who wrote Hamlet";
/** What the `search-then-answer` policy writes on turn 1 (Hermes call of its default tool). */
const FIRST_TURN = `<tool_call>\n{"name": "search__search", "arguments": {"query": "${QUESTION}"}}\n</tool_call>`;
const messages = [{ role: "user" as const, content: `Question: ${QUESTION}` }];

let tok: ModelTokenizer;
let llm: SimulatedLlm;
let vllm: VllmSampler;
let sglang: SglangSampler;
let chat: ChatCompletionsSampler;
let prompt: number[];

beforeAll(async () => {
  tok = await qwen3Tokenizer();
  llm = await startSimulatedLlm({ policy: "search-then-answer", tokenizer: tok, weightVersion: "v0" });
  vllm = new VllmSampler({ urls: [llm.url] });
  sglang = new SglangSampler({ urls: [llm.url] });
  chat = new ChatCompletionsSampler({ urls: [llm.url] });
  prompt = tok.encode(tok.renderChat(messages, { addGenerationPrompt: true }));
});
afterAll(async () => {
  await Promise.all([vllm?.close(), sglang?.close(), chat?.close()]);
  await llm?.close();
});

const sampling = (over: Record<string, unknown> = {}) =>
  samplingParamsSchema.parse({ max_tokens: 256, temperature: 1, ...over });

function lastRequest() {
  const r = llm.requests.at(-1);
  if (!r) throw new Error("the simulated LLM recorded no request");
  return r;
}

describe.each([
  ["vllm", () => vllm],
  ["sglang", () => sglang],
] as const)("%s sampler", (protocol, sampler) => {
  it("returns the sampled ids (end token included) with one logprob each", async () => {
    const r = await sampler().generate({ promptIds: prompt, sampling: sampling() });
    expect(tok.decode(r.ids)).toBe(`${FIRST_TURN}<|im_end|>`);
    expect(r.ids.at(-1)).toBe(tok.requireTokenId("<|im_end|>"));
    expect(r.logprobs).toHaveLength(r.ids.length);
    expect(r.logprobs.every((x) => Number.isFinite(x) && x <= 0)).toBe(true);
    expect(r.finishReason).toBe("stop");
    expect(r.server).toBe(llm.url);
    expect(lastRequest().protocol).toBe(protocol);
    expect(lastRequest().promptIds).toEqual(prompt);
  });

  it("sends the sampling parameters under the engine's names", async () => {
    const s = sampling({ temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 64, stop: ["</x>"], seed: 7 });
    await sampler().generate({ promptIds: prompt, sampling: s });
    expect(lastRequest().sampling).toEqual({
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      max_tokens: 64,
      stop: ["</x>"],
      seed: 7,
    });
  });

  it("keeps the stop string in the ids and reports it as matchedStop", async () => {
    const r = await sampler().generate({ promptIds: prompt, sampling: sampling({ stop: ["</tool_call>"] }) });
    expect(r.finishReason).toBe("stop");
    expect(r.matchedStop).toBe("</tool_call>");
    expect(tok.decode(r.ids)).toBe(FIRST_TURN);
  });

  it("stops at max_tokens with finish reason length", async () => {
    const r = await sampler().generate({ promptIds: prompt, sampling: sampling({ max_tokens: 5 }) });
    expect(r.finishReason).toBe("length");
    expect(r.ids).toHaveLength(5);
    expect(r.logprobs).toHaveLength(5);
    expect(FIRST_TURN.startsWith(tok.decode(r.ids))).toBe(true);
  });
});

describe("logprobs pass through unchanged", () => {
  it("vLLM: the same values as a raw request with the same seed", async () => {
    const raw = (await (
      await fetch(`${llm.url}/v1/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt, max_tokens: 256, seed: 11, logprobs: 0, return_token_ids: true }),
      })
    ).json()) as { choices: [{ token_ids: number[]; logprobs: { token_logprobs: number[] } }] };
    const r = await vllm.generate({ promptIds: prompt, sampling: sampling({ seed: 11 }) });
    expect(r.ids).toEqual(raw.choices[0].token_ids);
    expect(r.logprobs).toEqual(raw.choices[0].logprobs.token_logprobs);
  });
});

describe("SGLang weight version", () => {
  it("is passed through, and follows the server when it changes", async () => {
    const before = await sglang.generate({ promptIds: prompt, sampling: sampling() });
    expect(before.weightVersion).toBe("v0");
    llm.setWeightVersion("v1");
    const after = await sglang.generate({ promptIds: prompt, sampling: sampling() });
    expect(after.weightVersion).toBe("v1");
    // SGLang names the end token it stopped on; vLLM says null for EOS and has no weight version.
    expect(after.matchedStop).toBe(tok.requireTokenId("<|im_end|>"));
    const v = await vllm.generate({ promptIds: prompt, sampling: sampling() });
    expect([v.weightVersion, v.matchedStop]).toEqual([null, null]);
  });
});

describe("chat-completions sampler", () => {
  it("sends messages and sampling, returns the text; never trainable", async () => {
    const r = await chat.generate({
      messages,
      sampling: sampling({ temperature: 0.3, max_tokens: 100, seed: 3 }),
    });
    expect(chat.trainable).toBe(false);
    expect(r).toMatchObject({ text: FIRST_TURN, finishReason: "stop", server: llm.url });
    expect(lastRequest()).toMatchObject({
      protocol: "chat",
      promptIds: prompt,
      sampling: { temperature: 0.3, max_tokens: 100, stop: [], seed: 3 },
    });
  });

  it("maps a token cap to finish reason length", async () => {
    const r = await chat.generate({
      messages,
      sampling: sampling({ max_tokens: 4, stop: ["</tool_call>"] }),
    });
    expect(r.finishReason).toBe("length");
    expect(lastRequest().sampling.stop).toEqual(["</tool_call>"]);
    expect(FIRST_TURN.startsWith(r.text)).toBe(true);
  });
});
