// The OpenAI-compatible backend pool against simulated judge servers on 127.0.0.1: answers and usage,
// json_schema, retries, error codes, timeouts, cancellation, the concurrency limit, the circuit
// breaker, least-loaded routing and the ejection of an endpoint that fails.
import { createServer } from "node:net";
import { type SimulatedJudge, startSimulatedJudge } from "@rlfactory/test-support/simulated-judge";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JudgeError } from "../judge-types.ts";
import {
  type BackendConfigInput,
  backendConfigSchema,
  type ChatBackendPool,
  createChatBackend,
} from "./chat-backend.ts";
import type { ChatBackendRequest } from "./chat-backend-types.ts";

const judges: SimulatedJudge[] = [];
const backends: ChatBackendPool[] = [];
afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.close()));
  await Promise.all(judges.splice(0).map((j) => j.close()));
});

async function judge(options: Parameters<typeof startSimulatedJudge>[0]): Promise<SimulatedJudge> {
  const j = await startSimulatedJudge(options);
  judges.push(j);
  return j;
}

function backend(config: Partial<BackendConfigInput> & { base_urls?: string[]; base_url?: string }) {
  const b = createChatBackend(
    backendConfigSchema.parse({ model: "judge-model", retry_initial_delay_ms: 10, ...config }),
  );
  backends.push(b);
  return b;
}

const ask = (extra: Partial<ChatBackendRequest> = {}): ChatBackendRequest => ({
  messages: [
    { role: "system", content: "You are a judge." },
    { role: "user", content: "Rate this answer" },
  ],
  temperature: 0,
  max_tokens: 64,
  ...extra,
});

async function judgeError(p: Promise<unknown>): Promise<JudgeError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(JudgeError);
    return err as JudgeError;
  }
  throw new Error("expected a JudgeError, got an answer");
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 5 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("backend config", () => {
  it("accepts base_url or base_urls, strips a trailing /v1, fills defaults", () => {
    const one = backendConfigSchema.parse({ base_url: "http://127.0.0.1:8000/v1/", model: "m" });
    expect(one.base_urls).toEqual(["http://127.0.0.1:8000"]);
    expect(one).toMatchObject({
      timeout_ms: 60_000,
      retries: 2,
      max_concurrency: 32,
      breaker: { consecutive_failures: 5, half_open_after_ms: 10_000 },
      json_schema: false,
    });
    const two = backendConfigSchema.parse({ base_urls: ["http://a:1", "https://b/v1"], model: "m" });
    expect(two.base_urls).toEqual(["http://a:1", "https://b"]);
  });

  it("rejects neither or both URLs, an empty list, a non-http URL, and unknown keys", () => {
    expect(backendConfigSchema.safeParse({ model: "m" }).success).toBe(false);
    expect(
      backendConfigSchema.safeParse({ base_url: "http://a", base_urls: ["http://b"], model: "m" }).success,
    ).toBe(false);
    expect(backendConfigSchema.safeParse({ base_urls: [], model: "m" }).success).toBe(false);
    const twice = backendConfigSchema.safeParse({ base_urls: ["http://a:1/v1", "http://a:1"], model: "m" });
    expect(twice.error?.issues[0]?.message).toBe("http://a:1 is listed twice");
    expect(backendConfigSchema.safeParse({ base_url: "ftp://a", model: "m" }).success).toBe(false);
    expect(backendConfigSchema.safeParse({ base_url: "http://a", model: "m", timeout: 5 }).success).toBe(
      false,
    );
  });
});

describe("chat backend", () => {
  it("returns the judge's text, usage, model and server; sends the sampling settings and the API key", async () => {
    const seen: { auth?: string | string[] | undefined } = {};
    const j = await judge({
      model: "served-judge",
      script: (req) => {
        seen.auth = req.headers.authorization;
        return "<score>7</score> fine";
      },
    });
    process.env.RLF_TEST_JUDGE_KEY = "sekret";
    const b = backend({ base_url: `${j.url}/v1`, api_key_env: "RLF_TEST_JUDGE_KEY" });
    const res = await b.complete(ask({ seed: 3, top_p: 0.9 })).finally(() => {
      delete process.env.RLF_TEST_JUDGE_KEY;
    });
    expect(res.text).toBe("<score>7</score> fine");
    expect(res.model).toBe("served-judge");
    expect(res.server).toBe(j.url);
    // the fixture counts whitespace words: 4 + 3 in the prompt, 2 in the answer
    expect(res.usage).toEqual({ prompt_tokens: 7, completion_tokens: 2 });
    expect(b.model).toBe("judge-model");
    expect(seen.auth).toBe("Bearer sekret");
    const sent = j.requests[0]?.body;
    expect(sent).toMatchObject({ model: "judge-model", temperature: 0, max_tokens: 64, seed: 3, top_p: 0.9 });
    expect(sent?.response_format).toBeUndefined();
  });

  it("sends response_format json_schema only when enabled and the request has a schema", async () => {
    const j = await judge({ script: () => '{"score": 0.7, "explanation": "ok"}' });
    const schema = { type: "object", properties: { score: { type: "number" } }, required: ["score"] };
    const on = backend({ base_url: j.url, json_schema: true });
    const off = backend({ base_url: j.url });
    await on.complete(ask({ jsonSchema: { name: "verdict", schema } }));
    await off.complete(ask({ jsonSchema: { name: "verdict", schema } }));
    await on.complete(ask());
    expect(j.requests[0]?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "verdict", schema, strict: true },
    });
    expect(j.requests[1]?.body.response_format).toBeUndefined();
    expect(j.requests[2]?.body.response_format).toBeUndefined();
  });

  it("retries 503s and 429s with backoff, then succeeds", async () => {
    const j = await judge({
      script: (_r, i) => (i === 0 ? { status: 503 } : i === 1 ? { status: 429 } : "ok"),
    });
    const b = backend({ base_url: j.url, retries: 2 });
    const retried: number[] = [];
    b.events.onRetry((e) => retried.push(e.attempt));
    expect((await b.complete(ask())).text).toBe("ok");
    expect(j.requests).toHaveLength(3);
    expect(retried).toEqual([1, 2]);
  });

  it("gives BACKEND_ERROR with the status and the server's message once retries run out", async () => {
    const j = await judge({
      script: () => ({
        status: 500,
        body: JSON.stringify({ object: "error", message: "CUDA out of memory" }),
      }),
    });
    const b = backend({ base_url: j.url, retries: 1 });
    const err = await judgeError(b.complete(ask()));
    expect(err.code).toBe("BACKEND_ERROR");
    expect(err.message).toContain("500");
    expect(err.message).toContain("CUDA out of memory");
    expect(j.requests).toHaveLength(2);
  });

  it("does not retry a 400", async () => {
    const j = await judge({
      script: () => ({ status: 400, body: '{"error":{"message":"max_tokens too large"}}' }),
    });
    const b = backend({ base_url: j.url, retries: 3 });
    const err = await judgeError(b.complete(ask()));
    expect(err.code).toBe("BACKEND_ERROR");
    expect(err.message).toContain("400");
    expect(err.message).toContain("max_tokens too large");
    expect(j.requests).toHaveLength(1);
  });

  it("an answer without choices is BACKEND_ERROR bad response", async () => {
    const j = await judge({
      script: () => ({ status: 200, body: '{"object":"chat.completion","choices":[]}' }),
    });
    const b = backend({ base_url: j.url });
    const err = await judgeError(b.complete(ask()));
    expect(err.code).toBe("BACKEND_ERROR");
    expect(err.message).toContain("bad response");
  });

  it("an unreachable endpoint is BACKEND_UNAVAILABLE after retries", async () => {
    const b = backend({ base_url: `http://127.0.0.1:${await deadPort()}`, retries: 2 });
    const retried: number[] = [];
    b.events.onRetry((e) => retried.push(e.attempt));
    const err = await judgeError(b.complete(ask()));
    expect(err.code).toBe("BACKEND_UNAVAILABLE");
    expect(err.message).toContain("ECONNREFUSED");
    expect(retried).toEqual([1, 2]);
  });

  it("an attempt past timeout_ms is TIMEOUT, and the server sees the request end", async () => {
    const j = await judge({ script: () => ({ hang: true }) });
    const b = backend({ base_url: j.url, timeout_ms: 150 });
    const err = await judgeError(b.complete(ask()));
    expect(err.code).toBe("TIMEOUT");
    expect(j.requests).toHaveLength(1); // timeouts are not retried
    await until(() => j.inFlight() === 0);
  });

  it("the caller's signal cancels a request in flight and one still queued", async () => {
    const j = await judge({ script: () => ({ hang: true }) });
    const b = backend({ base_url: j.url, max_concurrency: 1 });
    const first = new AbortController();
    const second = new AbortController();
    const p1 = b.complete(ask({ signal: first.signal }));
    const p2 = b.complete(ask({ signal: second.signal }));
    await until(() => j.inFlight() === 1);
    second.abort(); // still queued behind the first
    expect((await judgeError(p2)).code).toBe("CANCELLED");
    first.abort();
    expect((await judgeError(p1)).code).toBe("CANCELLED");
    await until(() => j.inFlight() === 0);
    expect(j.requests).toHaveLength(1);
    const already = AbortSignal.abort();
    expect((await judgeError(b.complete(ask({ signal: already })))).code).toBe("CANCELLED");
  });

  it("holds max_concurrency over all endpoints with 100 concurrent requests; all are answered", async () => {
    // Both servers count into one tally, so the limit is checked across the pool, not per endpoint.
    let serving = 0;
    let maxServing = 0;
    const script = async (req: { messages: { content: string }[] }) => {
      serving++;
      maxServing = Math.max(maxServing, serving);
      await new Promise((r) => setTimeout(r, 10));
      serving--;
      return `echo ${req.messages[1]?.content}`;
    };
    const a = await judge({ script });
    const c = await judge({ script });
    const b = backend({ base_urls: [a.url, c.url], max_concurrency: 4 });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        b.complete(
          ask({
            messages: [
              { role: "system", content: "s" },
              { role: "user", content: `n${i}` },
            ],
          }),
        ),
      ),
    );
    expect(answers.map((x) => x.text)).toEqual(Array.from({ length: 100 }, (_, i) => `echo n${i}`));
    expect(a.requests.length + c.requests.length).toBe(100);
    expect(a.requests.length).toBeGreaterThan(0);
    expect(c.requests.length).toBeGreaterThan(0);
    expect(Math.max(a.maxInFlight(), c.maxInFlight())).toBeLessThanOrEqual(4);
    expect(maxServing).toBeLessThanOrEqual(4);
    expect(maxServing).toBeGreaterThan(1); // concurrent, not one at a time
  });

  it("opens the circuit after consecutive failures: CIRCUIT_OPEN without calling, then half-opens", async () => {
    let healthy = false;
    const j = await judge({ script: () => (healthy ? "ok" : { status: 503 }) });
    const b = backend({
      base_url: j.url,
      retries: 0,
      breaker: { consecutive_failures: 3, half_open_after_ms: 200 },
    });
    // The breaker (cockatiel) reads Date.now(): move that clock past half_open_after_ms instead of waiting.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (let i = 0; i < 3; i++) expect((await judgeError(b.complete(ask()))).code).toBe("BACKEND_ERROR");
      const open = await judgeError(b.complete(ask()));
      expect(open.code).toBe("CIRCUIT_OPEN");
      expect(j.requests).toHaveLength(3);
      healthy = true;
      vi.setSystemTime(Date.now() + 199);
      expect((await judgeError(b.complete(ask()))).code).toBe("CIRCUIT_OPEN");
      vi.setSystemTime(Date.now() + 2);
      expect((await b.complete(ask())).text).toBe("ok");
      expect(j.requests).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a 400 does not count towards the breaker", async () => {
    const j = await judge({ script: () => ({ status: 400 }) });
    const b = backend({ base_url: j.url, breaker: { consecutive_failures: 2 } });
    for (let i = 0; i < 4; i++) expect((await judgeError(b.complete(ask()))).code).toBe("BACKEND_ERROR");
    expect(j.requests).toHaveLength(4);
  });

  it("routes to the endpoint with the fewest requests in flight", async () => {
    const fast = await judge({ script: () => "fast" });
    const stuck = await judge({ script: () => ({ hang: true }) });
    const b = backend({ base_urls: [fast.url, stuck.url], timeout_ms: 2_000 });
    // Two at once: one lands on each endpoint; the one on `stuck` stays in flight.
    const pending = [b.complete(ask()), b.complete(ask())];
    const settled = Promise.allSettled(pending);
    await until(() => stuck.inFlight() === 1);
    // Now `stuck` has one in flight and `fast` none: every new request goes to `fast`.
    for (let i = 0; i < 5; i++) expect((await b.complete(ask())).server).toBe(fast.url);
    expect(stuck.requests).toHaveLength(1);
    expect(fast.requests).toHaveLength(6);
    await b.close();
    const results = await settled;
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected as PromiseRejectedResult).reason.code).toBe("CANCELLED");
  });

  it("ejects an unreachable endpoint: its request is retried on the other, later ones go there only", async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const live = await judge({ script: () => "ok" });
    const b = backend({ base_urls: [dead, live.url], retries: 2 });
    const retried: number[] = [];
    b.events.onRetry((e) => retried.push(e.attempt));
    for (let i = 0; i < 6; i++) expect((await b.complete(ask())).server).toBe(live.url);
    expect(live.requests).toHaveLength(6);
    // Only the first request tried the dead endpoint (the first of two idle ones); it is now ejected.
    expect(retried).toEqual([1]);
    expect(b.status()).toMatchObject([
      { url: dead, healthy: false, consecutiveFailures: 1, inFlight: 0 },
      { url: live.url, healthy: true, consecutiveFailures: 0, inFlight: 0 },
    ]);
  });

  it("after close, requests are CANCELLED without reaching the server", async () => {
    const j = await judge({ script: () => "ok" });
    const b = backend({ base_url: j.url });
    await b.close();
    expect((await judgeError(b.complete(ask()))).code).toBe("CANCELLED");
    expect(j.requests).toHaveLength(0);
  });
});
