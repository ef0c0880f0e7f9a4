// Retries, timeouts, cancellation, the concurrency limit and routing, against simulated LLM servers
// (fault injection and latency) over HTTP on 127.0.0.1. The SGLang client is the vehicle.

import { type SimulatedLlm, type SimulatedLlmOptions, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import type { RetryEvent, SamplerOptions } from "./http-transport.ts";
import { SglangSampler } from "./sglang.ts";
import { type InferenceError, samplingParamsSchema } from "./types.ts";

let tok: ModelTokenizer;
let prompt: number[];
const sampling = samplingParamsSchema.parse({ max_tokens: 128 });
const live: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  tok = await qwen3Tokenizer();
  prompt = tok.encode(
    tok.renderChat([{ role: "user", content: "Question: who wrote Hamlet" }], { addGenerationPrompt: true }),
  );
});
afterEach(async () => {
  for (const x of live.splice(0).reverse()) await x.close();
});

async function server(options: Partial<SimulatedLlmOptions> = {}): Promise<SimulatedLlm> {
  const llm = await startSimulatedLlm({ policy: "search-then-answer", tokenizer: tok, ...options });
  live.push(llm);
  return llm;
}

function client(urls: string[], options: Partial<SamplerOptions> = {}): SglangSampler {
  const s = new SglangSampler({ urls, retryInitialDelayMs: 1, retryMaxDelayMs: 10, ...options });
  live.push(s);
  return s;
}

async function failure(p: Promise<unknown>): Promise<InferenceError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected the request to fail").toBeDefined();
  return error as InferenceError;
}

/** Largest value `read()` takes while `work` runs (sampled every few ms). */
async function peakDuring<T>(read: () => number, work: Promise<T>): Promise<{ peak: number; value: T }> {
  let peak = read();
  const timer = setInterval(() => {
    peak = Math.max(peak, read());
  }, 2);
  try {
    const value = await work;
    return { peak, value };
  } finally {
    clearInterval(timer);
  }
}

describe("retries", () => {
  it("retries 503s with back-off and succeeds on the third attempt", async () => {
    const llm = await server({ failFirst: 2 });
    const sglang = client([llm.url], { retries: 2 });
    const retries: RetryEvent[] = [];
    sglang.transport.onRetry((e) => retries.push(e));
    const r = await sglang.generate({ promptIds: prompt, sampling });
    expect(r.ids.length).toBeGreaterThan(0);
    expect(llm.requests).toHaveLength(3);
    expect(retries.map((e) => [e.attempt, e.error.code, e.error.status])).toEqual([
      [1, "HTTP_ERROR", 503],
      [2, "HTTP_ERROR", 503],
    ]);
  });

  it("gives up after `retries` retries with the server's status and message", async () => {
    const llm = await server({ failFirst: 3 });
    const e = await failure(client([llm.url], { retries: 2 }).generate({ promptIds: prompt, sampling }));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 503 });
    expect(e.message).toMatch(/\/generate answered 503: simulated failure: request 3 of the first 3/);
    expect(llm.requests).toHaveLength(3);
  });

  it("never retries a 400", async () => {
    const llm = await server();
    const sglang = client([llm.url], { retries: 2 });
    const retries: RetryEvent[] = [];
    sglang.transport.onRetry((e) => retries.push(e));
    const e = await failure(sglang.generate({ promptIds: [...prompt, 99_999_999], sampling }));
    expect(e).toMatchObject({ code: "HTTP_ERROR", status: 400 });
    expect(e.message).toMatch(/answered 400: token id 99999999 is out of vocabulary/);
    expect(retries).toEqual([]);
  });
});

describe("timeout and cancellation", () => {
  it("a request slower than the timeout fails with TIMEOUT, is not retried, and is aborted on the server", async () => {
    const llm = await server({ latency: { turnMs: [5_000, 5_000] } });
    const e = await failure(
      client([llm.url], { timeoutMs: 150, retries: 2 }).generate({ promptIds: prompt, sampling }),
    );
    expect(e.code).toBe("TIMEOUT");
    expect(e.message).toMatch(/did not answer within the request timeout/);
    expect(llm.requests).toHaveLength(1);
    await vi.waitFor(() => expect(llm.inFlight).toBe(0), { timeout: 2_000 });
  });

  it("the caller's signal cancels an in-flight request: CANCELLED, and the HTTP request is aborted", async () => {
    const llm = await server({ latency: { turnMs: [5_000, 5_000] } });
    const ac = new AbortController();
    const pending = client([llm.url]).generate({ promptIds: prompt, sampling, signal: ac.signal });
    await vi.waitFor(() => expect(llm.inFlight).toBe(1), { timeout: 2_000 });
    ac.abort();
    const e = await failure(pending);
    expect(e.code).toBe("CANCELLED");
    await vi.waitFor(() => expect(llm.inFlight).toBe(0), { timeout: 2_000 });
  });

  it("a request cancelled while queued behind the concurrency limit never reaches the server", async () => {
    const llm = await server({ latency: { turnMs: [300, 300] } });
    const sglang = client([llm.url], { maxConcurrency: 1 });
    const first = sglang.generate({ promptIds: prompt, sampling });
    const ac = new AbortController();
    const queued = sglang.generate({ promptIds: prompt, sampling, signal: ac.signal });
    const next = sglang.generate({ promptIds: prompt, sampling });
    ac.abort();
    expect((await failure(queued)).code).toBe("CANCELLED");
    await first;
    // The queue is first in, first out: once the request queued after it is done, the cancelled one
    // would have been sent by now had it not been dropped.
    await next;
    expect(llm.requests).toHaveLength(2);
  });

  it("an already-aborted signal fails at once", async () => {
    const llm = await server();
    const e = await failure(
      client([llm.url]).generate({ promptIds: prompt, sampling, signal: AbortSignal.abort() }),
    );
    expect(e.code).toBe("CANCELLED");
    expect(llm.requests).toHaveLength(0);
  });
});

describe("concurrency limit", () => {
  it("holds requests in flight across all servers to the limit, queueing (not rejecting) the rest", async () => {
    const llms = await Promise.all([1, 2].map(() => server({ latency: { turnMs: [60, 60] } })));
    const sglang = client(
      llms.map((l) => l.url),
      { maxConcurrency: 2 },
    );
    const work = Promise.all(
      Array.from({ length: 8 }, () => sglang.generate({ promptIds: prompt, sampling })),
    );
    const { peak, value } = await peakDuring(() => llms[0]!.inFlight + llms[1]!.inFlight, work);
    expect(value).toHaveLength(8);
    expect(peak).toBeLessThanOrEqual(2);
    expect(peak).toBeGreaterThan(0);
    expect(llms[0]!.requests.length + llms[1]!.requests.length).toBe(8);
  });
});

describe("routing over several servers", () => {
  it("spreads concurrent requests evenly: least loaded first", async () => {
    const llms = await Promise.all([1, 2, 3].map(() => server({ latency: { turnMs: [150, 150] } })));
    const sglang = client(llms.map((l) => l.url));
    const results = await Promise.all(
      Array.from({ length: 9 }, () => sglang.generate({ promptIds: prompt, sampling })),
    );
    expect(llms.map((l) => l.requests.length)).toEqual([3, 3, 3]);
    for (const l of llms) expect(results.filter((r) => r.server === l.url)).toHaveLength(3);
  });

  it("keeps each session on one server, and re-pins it when that server goes away", async () => {
    const llms = await Promise.all([1, 2, 3].map(() => server()));
    const sglang = client(
      llms.map((l) => l.url),
      { retries: 2 },
    );
    const sessions = ["traj-a", "traj-b", "traj-c", "traj-d", "traj-e"];
    /** `n` rounds; each round sends one turn of every session, one after the other. */
    const rounds = async (n: number) => {
      const seen = new Map<string, string[]>(sessions.map((id) => [id, []]));
      for (let i = 0; i < n; i++) {
        for (const id of sessions) {
          const r = await sglang.generate({ promptIds: prompt, sampling, sessionId: id });
          seen.get(id)!.push(r.server);
        }
      }
      return sessions.map((id) => seen.get(id)!);
    };
    const first = await rounds(3);
    for (const servers of first) expect(new Set(servers).size).toBe(1);
    const home = new Map(sessions.map((id, i) => [id, first[i]![0]!]));
    expect(new Set(home.values()).size).toBe(3); // new sessions spread over the three servers

    // A server dies: its sessions move (one failed connection each at most), the others stay.
    const dead = llms[0]!;
    await dead.close();
    const second = await rounds(2);
    sessions.forEach((id, i) => {
      const servers = second[i]!;
      expect(new Set(servers).size).toBe(1);
      if (home.get(id) === dead.url) expect(servers[0]).not.toBe(dead.url);
      else expect(servers[0]).toBe(home.get(id));
    });
    expect(sglang.transport.status().find((s) => s.url === dead.url)?.healthy).toBe(false);
  });
});
