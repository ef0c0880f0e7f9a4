// What the simulated LLM server never sends: malformed bodies, old servers, error bodies, dead ports.
// Each case runs against a tiny node:http server on 127.0.0.1 that answers one fixed response.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ChatCompletionsSampler } from "./chat-completions.ts";
import { SglangSampler } from "./sglang.ts";
import { type InferenceError, samplingParamsSchema, type TextSampler, type TokenSampler } from "./types.ts";
import { VllmSampler } from "./vllm.ts";

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}
type Reply = { status?: number; json?: unknown; text?: string };

const servers: Server[] = [];
const samplers: (TokenSampler | TextSampler)[] = [];
afterEach(async () => {
  await Promise.all(samplers.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

async function fixedServer(reply: (seen: Seen) => Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      const s: Seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      };
      seen.push(s);
      const r = reply(s);
      res.writeHead(r.status ?? 200, { "content-type": "application/json" });
      res.end(r.text ?? JSON.stringify(r.json));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function track<T extends TokenSampler | TextSampler>(s: T): T {
  samplers.push(s);
  return s;
}

const sampling = samplingParamsSchema.parse({ max_tokens: 8, temperature: 0.7, stop: ["</answer>"] });
const FAST = { retries: 2, retryInitialDelayMs: 1, retryMaxDelayMs: 5, timeoutMs: 5_000 };

function vllmChoice(overrides: Record<string, unknown>) {
  return {
    choices: [
      {
        index: 0,
        text: "abc",
        token_ids: [10, 11, 12],
        logprobs: { token_logprobs: [-0.1, -0.2, -0.3], tokens: ["a", "b", "c"], text_offset: [0, 1, 2] },
        finish_reason: "stop",
        stop_reason: null,
        ...overrides,
      },
    ],
  };
}

async function failure(p: Promise<unknown>): Promise<InferenceError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected the request to fail").toBeDefined();
  return error as InferenceError;
}

describe("vLLM answers that cannot be trained on are BAD_RESPONSE, and not retried", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "an older server that ignores return_token_ids",
      { token_ids: undefined },
      /no choices\[0\]\.token_ids: the server ignored return_token_ids/,
    ],
    ["ids and logprobs of different lengths", { token_ids: [10, 11, 12, 13] }, /4 token ids but 3 logprobs/],
    [
      "a positive logprob",
      { logprobs: { token_logprobs: [-0.1, 0.5, -0.3] } },
      /logprob 0\.5 for token 1 \(id 11\)/,
    ],
    ["a null logprob", { logprobs: { token_logprobs: [-0.1, -0.2, null] } }, /logprob null for token 2/],
    ["no logprobs at all", { logprobs: null }, /no choices\[0\]\.logprobs/],
    ["an unknown finish reason", { finish_reason: "tool_calls" }, /finish reason "tool_calls"/],
    ["a negative token id", { token_ids: [10, -1, 12] }, /unexpected body \(choices\.0\.token_ids\.1/],
  ];
  for (const [name, overrides, message] of cases) {
    it(name, async () => {
      const { url, seen } = await fixedServer(() => ({ json: vllmChoice(overrides) }));
      const vllm = track(new VllmSampler({ urls: [url], model: "m", ...FAST }));
      const e = await failure(vllm.generate({ promptIds: [1, 2, 3], sampling }));
      expect(e.code).toBe("BAD_RESPONSE");
      expect(e.message).toMatch(message);
      expect(e.message).toContain(`${url}/v1/completions`);
      expect(seen).toHaveLength(1);
    });
  }

  it("a body that is not JSON", async () => {
    const { url } = await fixedServer(() => ({ text: "<html>bad gateway</html>" }));
    const vllm = track(new VllmSampler({ urls: [url], model: "m", ...FAST }));
    const e = await failure(vllm.generate({ promptIds: [1], sampling }));
    expect([e.code, e.message]).toEqual([
      "BAD_RESPONSE",
      expect.stringMatching(/not JSON: <html>bad gateway/),
    ]);
  });

  it("accepts vLLM's clamped -9999 and passes stop_reason through as matchedStop", async () => {
    const { url } = await fixedServer(() => ({
      json: vllmChoice({ logprobs: { token_logprobs: [-9999.0, 0, -0.3] }, stop_reason: "</answer>" }),
    }));
    const vllm = track(new VllmSampler({ urls: [url], model: "m", ...FAST }));
    const r = await vllm.generate({ promptIds: [1], sampling });
    expect(r).toMatchObject({
      ids: [10, 11, 12],
      logprobs: [-9999, 0, -0.3],
      finishReason: "stop",
      matchedStop: "</answer>",
      weightVersion: null,
      server: url,
    });
  });
});

describe("SGLang answers that cannot be trained on", () => {
  function sglangBody(overrides: Record<string, unknown>) {
    return {
      text: "abc",
      output_ids: [10, 11, 12],
      meta_info: {
        finish_reason: { type: "length", length: 3 },
        output_token_logprobs: [
          [-0.1, 10, null],
          [-0.2, 11, null],
          [-0.3, 12, null],
        ],
        weight_version: "v7",
        ...overrides,
      },
    };
  }

  it("logprob triples whose ids differ from output_ids", async () => {
    const bad = sglangBody({
      output_token_logprobs: [
        [-0.1, 10, null],
        [-0.2, 99, null],
        [-0.3, 12, null],
      ],
    });
    const { url, seen } = await fixedServer(() => ({ json: bad }));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const e = await failure(sglang.generate({ promptIds: [1], sampling }));
    expect(e.code).toBe("BAD_RESPONSE");
    expect(e.message).toMatch(/output_token_logprobs\[1\] for token id 99 but output_ids\[1\] is 11/);
    expect(seen).toHaveLength(1);
  });

  it("no output_token_logprobs", async () => {
    const { url } = await fixedServer(() => ({ json: sglangBody({ output_token_logprobs: undefined }) }));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const e = await failure(sglang.generate({ promptIds: [1], sampling }));
    expect([e.code, e.message]).toEqual([
      "BAD_RESPONSE",
      expect.stringMatching(/no meta_info\.output_token_logprobs/),
    ]);
  });

  it("reads an abort and a matched stop token; text in the triples is optional", async () => {
    const { url } = await fixedServer(() => ({
      json: sglangBody({
        finish_reason: { type: "stop", matched: 151645 },
        output_token_logprobs: [
          [-0.1, 10, "a"],
          [-0.2, 11, "b"],
          [-0.3, 12],
        ],
      }),
    }));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const r = await sglang.generate({ promptIds: [1], sampling });
    expect(r).toMatchObject({
      finishReason: "stop",
      matchedStop: 151645,
      weightVersion: "v7",
      ids: [10, 11, 12],
    });
  });
});

describe("HTTP errors", () => {
  it("a 4xx is HTTP_ERROR with the server's own message, and is not retried", async () => {
    const message =
      "This model's maximum context length is 40960 tokens. However, you requested 50000 tokens.";
    const { url, seen } = await fixedServer(() => ({
      status: 400,
      json: { error: { message, type: "BadRequestError", param: null, code: 400 } },
    }));
    const vllm = track(new VllmSampler({ urls: [url], model: "m", ...FAST }));
    const e = await failure(vllm.generate({ promptIds: [1], sampling }));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 400 });
    expect(e.message).toBe(`${url}/v1/completions answered 400: ${message}`);
    expect(seen).toHaveLength(1);
  });

  it("reads FastAPI's {detail} and cuts long messages short", async () => {
    const { url } = await fixedServer(() => ({ status: 422, json: { detail: `x${"y".repeat(5000)}` } }));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const e = await failure(sglang.generate({ promptIds: [1], sampling }));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 422 });
    expect(e.message.length).toBeLessThan(400);
    expect(e.message).toMatch(/answered 422: xyyy.*…$/);
  });

  it("a server that keeps answering 5xx: retried, then HTTP_ERROR with the last status", async () => {
    const { url, seen } = await fixedServer(() => ({ status: 502, text: "upstream connect error" }));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const e = await failure(sglang.generate({ promptIds: [1], sampling }));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 502 });
    expect(e.message).toMatch(/answered 502: upstream connect error/);
    expect(seen).toHaveLength(3);
  });

  it("a port nobody listens on: retried, then UNAVAILABLE", async () => {
    const { url } = await fixedServer(() => ({ json: {} }));
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    const sglang = track(new SglangSampler({ urls: [url], ...FAST }));
    const e = await failure(sglang.generate({ promptIds: [1], sampling }));
    expect(e.code).toBe("UNAVAILABLE");
    expect(e.message).toMatch(/could not be reached: .*ECONNREFUSED/);
    expect(sglang.transport.status()[0]).toMatchObject({ healthy: false, consecutiveFailures: 3 });
  });

  it("a broken server among healthy ones costs one failed attempt: it is ejected, the retry goes elsewhere", async () => {
    const broken = await fixedServer(() => ({ status: 503, text: "overloaded" }));
    const good = await fixedServer(() => ({ json: vllmChoice({}) }));
    const vllm = track(new VllmSampler({ urls: [broken.url, good.url], model: "m", ...FAST }));
    for (let i = 0; i < 6; i++) {
      const r = await vllm.generate({ promptIds: [1], sampling, sessionId: `traj-${i % 2}` });
      expect(r.server).toBe(good.url);
    }
    expect(broken.seen).toHaveLength(1);
    expect(good.seen).toHaveLength(6);
  });
});

describe("model name and headers", () => {
  it("without a configured model, asks GET /v1/models once and sends its first id", async () => {
    const { url, seen } = await fixedServer((s) =>
      s.path === "/v1/models"
        ? { json: { object: "list", data: [{ id: "Qwen/Qwen3-4B", object: "model" }, { id: "lora-1" }] } }
        : { json: vllmChoice({}) },
    );
    const vllm = track(new VllmSampler({ urls: [`${url}/v1`], ...FAST }));
    await Promise.all(Array.from({ length: 4 }, () => vllm.generate({ promptIds: [1], sampling })));
    expect(seen.filter((s) => s.path === "/v1/models")).toHaveLength(1);
    const posts = seen.filter((s) => s.path === "/v1/completions");
    expect(posts).toHaveLength(4);
    for (const p of posts) expect(p.body).toMatchObject({ model: "Qwen/Qwen3-4B" });
  });

  it("an empty model list is BAD_RESPONSE telling to configure the model", async () => {
    const { url } = await fixedServer(() => ({ json: { object: "list", data: [] } }));
    const vllm = track(new VllmSampler({ urls: [url], ...FAST }));
    const e = await failure(vllm.generate({ promptIds: [1], sampling }));
    expect([e.code, e.message]).toEqual([
      "BAD_RESPONSE",
      expect.stringMatching(/lists no model; set `model`/),
    ]);
  });

  it("sends the API key as a bearer token, and a path prefix is kept", async () => {
    const { url, seen } = await fixedServer(() => ({
      json: {
        choices: [{ index: 0, message: { role: "assistant", content: "Paris" }, finish_reason: "stop" }],
      },
    }));
    const chat = track(
      new ChatCompletionsSampler({ urls: [`${url}/proxy/`], model: "gpt-x", apiKey: "sk-test" }),
    );
    const r = await chat.generate({ messages: [{ role: "user", content: "Capital of France?" }], sampling });
    expect(r).toMatchObject({ text: "Paris", finishReason: "stop", server: `${url}/proxy` });
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: "/proxy/v1/chat/completions",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
    });
  });
});
