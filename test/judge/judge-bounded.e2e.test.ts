// `rlf judge` as a real child process under CPU-heavy and oversized input: rule graders run in worker
// threads under a deadline (the event loop stays free: /healthz answers while every worker is busy),
// per-field limits answer INVALID_REQUEST naming the limit, a body over limits.max_body_bytes is a 413
// (not a connection reset), and a multi grader over rule_graders.max_sub_graders is refused. Proven by
// order and by answers, never by elapsed time.
import { request } from "node:http";
import {
  type ChildJudge,
  longGradingText,
  spawnJudge,
  writeConfig,
} from "@rlfactory/test-support/judge-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WORKERS = 2;

/** A multi grader of four fuzzy matches over ~99,000 characters: tens of seconds of CPU, unbounded. */
const heavyRule = (seed: number) => ({
  mode: "rule",
  response: longGradingText(seed),
  reference: longGradingText(seed + 1),
  grader: {
    type: "multi",
    graders: Object.fromEntries(
      ["a", "b", "c", "d"].map((k) => [k, { type: "text_similarity", metric: "fuzzy_match" }]),
    ),
    calculate_output: "(a + b + c + d) / 4",
  },
});

/** POSTs `bytes` of JSON in 1 MiB writes, each after the last is flushed, as a client on a network does. */
function upload(url: string, bytes: number, chunked = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(chunked ? {} : { "content-length": bytes }) },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    const chunk = Buffer.alloc(1024 * 1024, "x");
    let sent = 0;
    const next = () => {
      if (sent >= bytes) return req.end();
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      req.write(chunk.subarray(0, n), () => setImmediate(next));
    };
    next();
  });
}

async function inFlight(judge: ChildJudge): Promise<number> {
  const text = await (await fetch(`${judge.httpUrl}/metrics`)).text();
  return Number(/^rlf_judge_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
}

describe("rlf judge: bounded work", () => {
  let judge: ChildJudge;
  beforeAll(async () => {
    const config = writeConfig({
      rule_graders: { workers: WORKERS, deadline_ms: 5_000, max_sub_graders: 8 },
      limits: { max_response_chars: 150_000 },
    });
    judge = await spawnJudge(["--config", config]);
  });
  afterAll(async () => {
    await judge?.stop();
  });

  it("/healthz answers while every grader worker is busy; the graders then hit their deadline as TIMEOUT", async () => {
    const n = WORKERS + 2;
    const settled: boolean[] = new Array(n).fill(false);
    const heavy = Array.from({ length: n }, (_, i) =>
      judge.post(heavyRule(i)).finally(() => {
        settled[i] = true;
      }),
    );
    // every heavy request is inside the service (two grading, two queued) …
    for (let tries = 0; (await inFlight(judge)) < n; tries++) {
      expect(tries).toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 5));
    }
    // … and /healthz is answered before any of them is
    const health = await fetch(`${judge.httpUrl}/healthz`);
    const settledAtHealth = settled.filter(Boolean).length;
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(settledAtHealth).toBe(0);

    const answers = await Promise.all(heavy);
    for (const a of answers) {
      expect(a.status).toBe(504);
      expect(a.json).toMatchObject({
        error: {
          code: "TIMEOUT",
          message: expect.stringContaining("rule_graders.deadline_ms"),
          limit: { setting: "rule_graders.deadline_ms", max: 5_000 },
        },
      });
    }
    // the stopped workers are replaced: an ordinary grading is served
    const light = await judge.post({
      mode: "rule",
      response: "Paris",
      reference: "paris",
      grader: { type: "string_check", operation: "ieq" },
    });
    expect(light).toMatchObject({ status: 200, json: { score: 1 } });
  });

  it("a field over its limit is INVALID_REQUEST naming the limit, before any other work", async () => {
    const { status, json } = await judge.post({
      mode: "pointwise",
      task: "t",
      response: "x".repeat(150_001),
    });
    expect(status).toBe(400);
    expect(json).toMatchObject({
      error: {
        code: "INVALID_REQUEST",
        message: "response has 150001 characters, more than limits.max_response_chars (150000)",
        limit: { setting: "limits.max_response_chars", max: 150_000, actual: 150_001 },
      },
    });
  });

  it("a multi grader with more sub-graders than rule_graders.max_sub_graders is refused", async () => {
    const graders = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [`g${i}`, { type: "string_check", operation: "eq" }]),
    );
    const { status, json } = await judge.post({
      mode: "rule",
      response: "a",
      reference: "a",
      grader: { type: "multi", graders, calculate_output: "g0" },
    });
    expect(status).toBe(400);
    expect(json).toMatchObject({
      error: {
        code: "INVALID_REQUEST",
        limit: { setting: "rule_graders.max_sub_graders", max: 8, actual: 9 },
      },
    });
  });

  it("a 17 MiB body is answered 413 with a typed error, not a connection reset; the judge serves on", async () => {
    for (const chunked of [false, true]) {
      const { status, body } = await upload(`${judge.httpUrl}/v1/judge`, 17 * 1024 * 1024, chunked);
      expect(status).toBe(413);
      expect(JSON.parse(body)).toMatchObject({
        error: {
          code: "INVALID_REQUEST",
          message: expect.stringContaining("limits.max_body_bytes"),
          limit: { setting: "limits.max_body_bytes", max: 16 * 1024 * 1024 },
        },
      });
    }
    expect((await fetch(`${judge.httpUrl}/healthz`)).status).toBe(200);
  });
});
