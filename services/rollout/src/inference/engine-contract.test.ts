// The contract every registered inference engine keeps, run over every entry of the registry
// (`describe.each(INFERENCE_ENGINE_NAMES)`) against the simulated inference server on 127.0.0.1 (real
// Qwen3 tokenizer): `createSampler` builds the engine's client under its name; a generation comes back
// as the policy wrote it — token ids with one logprob each for a trainable engine, text for a text-only
// one — and reaches the server in the engine's wire protocol; the caller's signal cancels an in-flight
// request (CANCELLED, and the server sees the request go); a server answering 503 is a typed
// InferenceError (HTTP_ERROR, status 503), retried when retries allow.
// `PROTOCOLS` is typed by the registry's names, so an engine added there without its entry here fails the
// typecheck.
import { type Protocol, type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import {
  INFERENCE_ENGINE_NAMES,
  type InferenceEngineName,
  inferenceEngines,
  TOKEN_ENGINE_NAMES,
} from "./engines.ts";
import { createSampler, type InferenceConfigInput } from "./sampler-config.ts";
import { InferenceError, samplingParamsSchema, type TextSampler, type TokenSampler } from "./types.ts";

/** The wire protocol the simulated server records for each engine's requests. */
const PROTOCOLS: { readonly [E in InferenceEngineName]: Protocol } = {
  vllm: "vllm",
  sglang: "sglang",
  "chat-completions": "chat",
};

const QUESTION = "who wrote Hamlet";
/** What the `search-then-answer` policy writes on turn 1. */
const FIRST_TURN = `<tool_call>\n{"name": "search__search", "arguments": {"query": "${QUESTION}"}}\n</tool_call>`;
const messages = [{ role: "user" as const, content: `Question: ${QUESTION}` }];
const sampling = samplingParamsSchema.parse({ max_tokens: 256, temperature: 1 });

let tok: ModelTokenizer;
let prompt: number[];
const live: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  tok = await qwen3Tokenizer();
  prompt = tok.encode(tok.renderChat(messages, { addGenerationPrompt: true }));
});
afterEach(async () => {
  for (const x of live.splice(0).reverse()) await x.close();
});

async function server(
  options: { turnMs?: [number, number]; failFirst?: number } = {},
): Promise<SimulatedLlm> {
  const llm = await startSimulatedLlm({
    policy: "search-then-answer",
    tokenizer: tok,
    failFirst: options.failFirst ?? 0,
    ...(options.turnMs && { latency: { turnMs: options.turnMs } }),
  });
  live.push(llm);
  return llm;
}

function sampler(
  engine: InferenceEngineName,
  over: Partial<InferenceConfigInput> = {},
): TokenSampler | TextSampler {
  const s = createSampler({ engine, url: "http://127.0.0.1:1", ...over });
  live.push(s);
  return s;
}

/** One generation of the prompt's first turn, whatever the client's kind: the text, ids and logprobs. */
async function generate(s: TokenSampler | TextSampler, signal?: AbortSignal) {
  if (s.trainable) {
    const r = await s.generate({ promptIds: prompt, sampling, ...(signal && { signal }) });
    return {
      text: tok.decode(r.ids),
      ids: r.ids,
      logprobs: r.logprobs,
      finishReason: r.finishReason,
      server: r.server,
    };
  }
  const r = await s.generate({ messages, sampling, ...(signal && { signal }) });
  return {
    text: r.text,
    ids: undefined,
    logprobs: undefined,
    finishReason: r.finishReason,
    server: r.server,
  };
}

async function failure(p: Promise<unknown>): Promise<InferenceError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InferenceError);
  return error as InferenceError;
}

describe.each(INFERENCE_ENGINE_NAMES)("inference engine %s", (engine) => {
  const entry = inferenceEngines[engine];

  it("is built by createSampler under its own name, trainable as its registry entry says", () => {
    const s = sampler(engine);
    expect(s.kind).toBe(engine);
    expect(s.trainable).toBe(entry.trainable);
    // a rollout request may name it for its own servers exactly when it returns tokens
    expect((TOKEN_ENGINE_NAMES as readonly string[]).includes(engine)).toBe(entry.trainable);
    expect(entry.summary).not.toBe("");
  });

  it("returns the generation (token ids with one finite logprob each when trainable) in its protocol", async () => {
    const llm = await server();
    const r = await generate(sampler(engine, { url: llm.url }));
    expect(r.text.replace(/<\|im_end\|>$/, "")).toBe(FIRST_TURN);
    expect(r.finishReason).toBe("stop");
    expect(r.server).toBe(llm.url);
    if (entry.trainable) {
      expect(r.ids?.length).toBeGreaterThan(0);
      expect(r.logprobs).toHaveLength(r.ids?.length ?? -1);
      expect(r.logprobs?.every((x) => Number.isFinite(x) && x <= 0)).toBe(true);
    }
    expect(llm.requests.map((q) => [q.protocol, q.promptIds])).toEqual([[PROTOCOLS[engine], prompt]]);
  });

  it("cancels an in-flight request through the caller's signal: CANCELLED, and the server sees it go", async () => {
    const llm = await server({ turnMs: [10_000, 10_000] });
    const ac = new AbortController();
    const pending = generate(sampler(engine, { url: llm.url }), ac.signal);
    await vi.waitFor(() => expect(llm.inFlight).toBe(1), { timeout: 5_000 });
    ac.abort();
    expect((await failure(pending)).code).toBe("CANCELLED");
    await vi.waitFor(() => expect(llm.inFlight).toBe(0), { timeout: 5_000 });
  });

  it("reports a server answering 503 as HTTP_ERROR 503, and retries it when retries allow", async () => {
    const down = await server({ failFirst: 1_000 });
    const e = await failure(generate(sampler(engine, { url: down.url, retries: 0 })));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 503 });
    expect(e.message).toMatch(/503/);
    expect(down.requests).toHaveLength(1);

    const flaky = await server({ failFirst: 1 });
    const r = await generate(sampler(engine, { url: flaky.url, retries: 1 }));
    expect(r.text.replace(/<\|im_end\|>$/, "")).toBe(FIRST_TURN);
    expect(flaky.requests).toHaveLength(2);
  });
});
