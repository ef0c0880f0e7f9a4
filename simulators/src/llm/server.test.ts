// The simulated LLM over real HTTP on 127.0.0.1: vLLM, SGLang and chat wire shapes, validation,
// determinism, weight versions, fault injection, concurrency and client disconnects.

import { type ModelTokenizer, qwen3Tokenizer } from "@rlfactory/rollout";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { simulateLlmOptions } from "./command.ts";
import { type SimulatedLlm, startSimulatedLlm } from "./server.ts";

let tok: ModelTokenizer;
let llm: SimulatedLlm;
let prompt: number[];
const QUESTION = "who wrote Hamlet";

beforeAll(async () => {
  tok = await qwen3Tokenizer();
  llm = await startSimulatedLlm({ policy: "search-then-answer", tokenizer: tok, weightVersion: "v0" });
  prompt = tok.encode(
    tok.renderChat([{ role: "user", content: `Question: ${QUESTION}` }], { addGenerationPrompt: true }),
  );
});
afterAll(() => llm?.close());

// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary response JSON
type Json = any;

async function get(path: string): Promise<Json> {
  return (await fetch(`${llm.url}${path}`)).json();
}

async function post(path: string, body: unknown, url = llm.url): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const expectedCall = `<tool_call>\n{"name": "search__search", "arguments": {"query": "${QUESTION}"}}\n</tool_call>`;

describe("vLLM POST /v1/completions", () => {
  it("answers in vLLM's shape with token ids, prompt ids and aligned logprobs", async () => {
    const { status, json } = await post("/v1/completions", {
      model: "anything",
      prompt,
      max_tokens: 256,
      temperature: 1,
      logprobs: 0,
      return_token_ids: true,
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: "text_completion", model: "simulated-search-then-answer" });
    expect(json.id).toMatch(/^cmpl-/);
    const choice = json.choices[0];
    expect(choice).toMatchObject({ index: 0, text: expectedCall, finish_reason: "stop", stop_reason: null });
    expect(choice.prompt_token_ids).toEqual(prompt);
    expect(choice.token_ids).toEqual([...tok.encode(expectedCall), tok.requireTokenId("<|im_end|>")]);
    expect(tok.decode(choice.token_ids, { skipSpecialTokens: true })).toBe(choice.text);
    const lp = choice.logprobs;
    expect(lp.token_logprobs).toHaveLength(choice.token_ids.length);
    expect(lp.tokens).toEqual(choice.token_ids.map((id: number) => tok.decode([id])));
    expect(lp.token_logprobs.every((x: number) => Number.isFinite(x) && x <= 0)).toBe(true);
    expect(lp.top_logprobs.map((m: object) => Object.keys(m).length)).toEqual(lp.tokens.map(() => 1));
    expect(lp.text_offset[0]).toBe(0);
    expect(json.usage).toEqual({
      prompt_tokens: prompt.length,
      completion_tokens: choice.token_ids.length,
      total_tokens: prompt.length + choice.token_ids.length,
      prompt_tokens_details: null,
    });
  });

  it("accepts a string prompt, leaves ids out unless asked, and gives k alternatives with logprobs: k", async () => {
    const { json } = await post("/v1/completions", {
      prompt: tok.decode(prompt),
      max_tokens: 100,
      logprobs: 2,
    });
    expect(json.choices[0].text).toBe(expectedCall);
    expect(json.choices[0].token_ids).toBeNull();
    expect(json.choices[0].prompt_token_ids).toBeNull();
    for (const top of json.choices[0].logprobs.top_logprobs) {
      expect(Object.keys(top).length).toBeGreaterThanOrEqual(2);
      expect(Object.values(top).reduce((s: number, x) => s + Math.exp(x as number), 0)).toBeLessThanOrEqual(
        1 + 1e-9,
      );
    }
  });

  it("applies stop strings and max_tokens like vLLM", async () => {
    const stopped = await post("/v1/completions", { prompt, max_tokens: 100, stop: '"arguments"' });
    expect(stopped.json.choices[0]).toMatchObject({
      text: '<tool_call>\n{"name": "search__search", ',
      finish_reason: "stop",
      stop_reason: '"arguments"',
    });
    const kept = await post("/v1/completions", {
      prompt,
      max_tokens: 100,
      stop: ['"arguments"'],
      include_stop_str_in_output: true,
    });
    expect(kept.json.choices[0].text).toBe('<tool_call>\n{"name": "search__search", "arguments"');
    const capped = await post("/v1/completions", { prompt, max_tokens: 5, return_token_ids: true });
    expect(capped.json.choices[0]).toMatchObject({ finish_reason: "length", stop_reason: null });
    expect(capped.json.choices[0].token_ids).toEqual(tok.encode(expectedCall).slice(0, 5));
  });

  it("is deterministic by seed: same request and seed, same logprobs; another seed, others", async () => {
    const req = { prompt, max_tokens: 64, temperature: 1, logprobs: 0, seed: 11 };
    const a = await post("/v1/completions", req);
    const b = await post("/v1/completions", req);
    const c = await post("/v1/completions", { ...req, seed: 12 });
    expect(b.json.choices[0].logprobs).toEqual(a.json.choices[0].logprobs);
    expect(c.json.choices[0].logprobs.token_logprobs).not.toEqual(a.json.choices[0].logprobs.token_logprobs);
    const greedy = await post("/v1/completions", { ...req, temperature: 0 });
    expect(Math.min(...greedy.json.choices[0].logprobs.token_logprobs)).toBeGreaterThan(-0.01);
  });

  it("rejects bad input with 400 and vLLM's error shape", async () => {
    const cases: [unknown, RegExp][] = [
      [{ prompt: [1, tok.vocabSize] }, /out of vocabulary/],
      [{ prompt, max_tokens: 0 }, /max_tokens/],
      [{ max_tokens: 10 }, /prompt/],
      [{ prompt, stream: true }, /stream is not supported/],
      [{ prompt, max_tokens: 40_960 }, /maximum context length is 40960 tokens/],
      ["{not json", /JSON/i],
    ];
    for (const [body, message] of cases) {
      const { status, json } = await post("/v1/completions", body);
      expect(status).toBe(400);
      expect(json.error).toMatchObject({ type: "BadRequestError", code: 400 });
      expect(json.error.message).toMatch(message);
    }
  });

  it("lists one model named simulated-<policy>; /health answers", async () => {
    const models = await get("/v1/models");
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(["simulated-search-then-answer"]);
    expect((await fetch(`${llm.url}/health`)).status).toBe(200);
  });
});

describe("SGLang POST /generate", () => {
  it("answers with output_ids, meta_info and [logprob, id, null] triples aligned with the ids", async () => {
    const { status, json } = await post("/generate", {
      input_ids: prompt,
      sampling_params: { max_new_tokens: 200, temperature: 0.7, sampling_seed: 3 },
      return_logprob: true,
    });
    expect(status).toBe(200);
    const eos = tok.requireTokenId("<|im_end|>");
    expect(json.text).toBe(expectedCall);
    expect(json.output_ids).toEqual([...tok.encode(expectedCall), eos]);
    expect(json.meta_info).toMatchObject({
      finish_reason: { type: "stop", matched: eos },
      prompt_tokens: prompt.length,
      completion_tokens: json.output_ids.length,
      weight_version: llm.weightVersion,
    });
    expect(json.meta_info.output_token_logprobs.map((t: unknown[]) => t[1])).toEqual(json.output_ids);
    expect(
      json.meta_info.output_token_logprobs.every((t: unknown[]) => (t[0] as number) <= 0 && t[2] === null),
    ).toBe(true);
    expect(json.meta_info.e2e_latency).toBeGreaterThanOrEqual(0);
  });

  it("reports length as {type: 'length', length}, stop strings as matched, and trims unless no_stop_trim", async () => {
    const capped = await post("/generate", { input_ids: prompt, sampling_params: { max_new_tokens: 4 } });
    expect(capped.json.meta_info.finish_reason).toEqual({ type: "length", length: 4 });
    expect(capped.json.output_ids).toHaveLength(4);
    const trimmed = await post("/generate", {
      text: tok.decode(prompt),
      sampling_params: { stop: ["</tool_call>"] },
    });
    expect(trimmed.json.meta_info.finish_reason).toEqual({ type: "stop", matched: "</tool_call>" });
    expect(trimmed.json.text).toBe(expectedCall.slice(0, -"</tool_call>".length));
    const kept = await post("/generate", {
      input_ids: prompt,
      sampling_params: { stop: ["</tool_call>"], no_stop_trim: true },
    });
    expect(kept.json.text).toBe(expectedCall);
    expect(kept.json.output_ids).toEqual(tok.encode(expectedCall));
  });

  it("reports the weight version at answer time: /update_weight_version and setWeightVersion change it", async () => {
    const info = await get("/get_model_info");
    expect(info).toMatchObject({ model_path: "simulated-search-then-answer", weight_version: "v0" });
    const updated = await post("/update_weight_version", { new_version: "step-7" });
    expect(updated.json).toMatchObject({ success: true, new_version: "step-7" });
    const gen = await post("/generate", { input_ids: prompt });
    expect(gen.json.meta_info.weight_version).toBe("step-7");
    llm.setWeightVersion("v0");
    expect((await post("/generate", { input_ids: prompt })).json.meta_info.weight_version).toBe("v0");
  });

  it("rejects bad input with 400", async () => {
    for (const body of [
      { input_ids: [-1] },
      { input_ids: [[1, 2]] },
      { text: "hi", input_ids: [1] },
      { input_ids: prompt, sampling_params: { max_new_tokens: 0 } },
    ]) {
      const { status, json } = await post("/generate", body);
      expect(status).toBe(400);
      expect(json.error.type).toBe("BadRequestError");
    }
  });
});

describe("OpenAI POST /v1/chat/completions", () => {
  it("renders the messages with the chat template and answers in message.content", async () => {
    const { status, json } = await post("/v1/chat/completions", {
      messages: [{ role: "user", content: `Question: ${QUESTION}` }],
      max_tokens: 100,
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: "chat.completion", model: "simulated-search-then-answer" });
    expect(json.choices[0]).toMatchObject({
      message: { role: "assistant", content: expectedCall },
      finish_reason: "stop",
    });
    expect(json.usage.prompt_tokens).toBe(prompt.length);
  });

  it("with `tools`, parses the Hermes call into message.tool_calls, as vLLM's hermes parser does", async () => {
    const tools = [
      { type: "function", function: { name: "search__search", parameters: { type: "object" } } },
    ];
    const { status, json } = await post("/v1/chat/completions", {
      messages: [{ role: "user", content: `Question: ${QUESTION}` }],
      tools,
      max_tokens: 100,
    });
    expect(status).toBe(200);
    expect(json.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [
          {
            type: "function",
            function: { name: "search__search", arguments: JSON.stringify({ query: QUESTION }) },
          },
        ],
      },
      finish_reason: "tool_calls",
    });
    // the call's id answers it: a tool message naming it renders as the tool's response
    const callId = json.choices[0].message.tool_calls[0].id;
    expect(callId).toMatch(/.+/);
    const next = await post("/v1/chat/completions", {
      messages: [
        { role: "user", content: `Question: ${QUESTION}` },
        { role: "assistant", content: "", tool_calls: json.choices[0].message.tool_calls },
        { role: "tool", tool_call_id: callId, content: 'Doc 1(Title: "Doctor Strange") a 2016 film' },
      ],
      tools,
      max_tokens: 100,
    });
    expect(next.json.choices[0]).toMatchObject({
      message: { content: "<answer>Doctor Strange</answer>", tool_calls: [] },
      finish_reason: "stop",
    });
  });
});

describe("recorded requests, faults, latency", () => {
  it("records every generate request with its sampling, failed ones included (--fail-first)", async () => {
    const flaky = await startSimulatedLlm({ policy: "keep-searching", tokenizer: tok, failFirst: 2 });
    try {
      const body = { prompt, max_tokens: 50, temperature: 0.6, top_p: 0.9, stop: ["</tool_call>"], seed: 5 };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post("/v1/completions", body, flaky.url)).status);
      expect(statuses).toEqual([503, 503, 200]);
      const unseeded = await post("/v1/completions", { prompt: [1, 2] }, flaky.url);
      expect(unseeded.status).toBe(200);
      expect(flaky.requests).toHaveLength(4);
      expect(flaky.requests[0]).toMatchObject({
        protocol: "vllm",
        promptIds: prompt,
        sampling: { temperature: 0.6, top_p: 0.9, max_tokens: 50, stop: ["</tool_call>"], seed: 5 },
      });
      expect(flaky.requests[3]!.sampling).toMatchObject({ temperature: 1, max_tokens: 16, stop: [] });
    } finally {
      await flaky.close();
    }
  });

  it("keeps no request when started with recordRequests: false (as rlf-sim llm is), and still answers", async () => {
    const cli = await startSimulatedLlm({
      ...(await simulateLlmOptions({ policy: "keep-searching" })),
      port: 0,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await post("/v1/completions", { prompt, max_tokens: 50 }, cli.url);
        expect(res.status).toBe(200);
        expect(res.json.choices[0].text).toContain("<tool_call>");
      }
      expect(cli.requests).toEqual([]);
    } finally {
      await cli.close();
    }
  });

  it("--fail-rate fails a seeded share of requests, the same ones for the same seed", async () => {
    const pattern = async () => {
      const s = await startSimulatedLlm({ policy: "search-r1", tokenizer: tok, failRate: 0.5, seed: 9 });
      try {
        const out = [];
        for (let i = 0; i < 12; i++) out.push((await post("/generate", { input_ids: prompt }, s.url)).status);
        return out;
      } finally {
        await s.close();
      }
    };
    const first = await pattern();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  it("serves requests concurrently on timers and drops a request whose client hung up", async () => {
    const slow = await startSimulatedLlm({
      policy: "search-r1",
      tokenizer: tok,
      latency: { turnMs: [20_000, 20_000] },
    });
    try {
      const controllers = Array.from({ length: 8 }, () => new AbortController());
      const pending = controllers.map((c) =>
        fetch(`${slow.url}/generate`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input_ids: prompt }),
          signal: c.signal,
        }).catch((e: Error) => e),
      );
      await vi.waitFor(() => expect(slow.inFlight).toBe(8), { timeout: 5000 });
      for (const c of controllers.slice(0, 5)) c.abort();
      await vi.waitFor(() => expect(slow.inFlight).toBe(3), { timeout: 5000 });
      // shutting down answers the rest 503 instead of leaving them hanging
      const closing = slow.close();
      const rest = await Promise.all(pending.slice(5));
      expect(rest.map((r) => (r instanceof Response ? r.status : r.name))).toEqual([503, 503, 503]);
      await closing;
    } finally {
      await slow.close().catch(() => {});
    }
  });
});
