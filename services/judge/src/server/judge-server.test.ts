// The judge's two network surfaces on 127.0.0.1 (real sockets), in front of a TEST STAND-IN service
// (a small `{ judge, close }` object answering from what it is asked, standing in for
// createJudgeService): the HTTP contract, the gRPC mirror of it, validation, status codes, metrics.
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { JudgeClient } from "@rlfactory/clients";
import type { JudgeClient as ProtoJudgeClient } from "@rlfactory/proto/types/Judge";
import type { JudgeResponse__Output } from "@rlfactory/proto/types/JudgeResponse";
import { documentedMetricNames, scrapedMetricNames } from "@rlfactory/test-support/metric-names";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_STATUS, type JudgeErrorCode, type JudgeOutcome, type JudgeRequest } from "../judge-types.ts";
import { type JudgeServer, type JudgeServiceHandle, startJudgeServer } from "./judge-server.ts";

/** Test stand-in for the judge service: the score is response length / 10; "fail:CODE" fails with CODE. */
function standInService(): JudgeServiceHandle & { seen: JudgeRequest[]; signals: AbortSignal[] } {
  const seen: JudgeRequest[] = [];
  const signals: AbortSignal[] = [];
  return {
    seen,
    signals,
    async judge(request, opts): Promise<JudgeOutcome> {
      seen.push(request);
      if (opts?.signal) signals.push(opts.signal);
      const text = "response" in request ? request.response : request.responses.join("");
      if (text === "throw") throw new Error("stand-in bug");
      if (text.startsWith("fail:")) {
        return { ok: false, error: { code: text.slice(5) as JudgeErrorCode, message: `stand-in ${text}` } };
      }
      if (text === "hang") {
        await new Promise((resolve) => opts?.signal?.addEventListener("abort", resolve));
        return { ok: false, error: { code: "CANCELLED", message: "cancelled" } };
      }
      return {
        ok: true,
        result: {
          score: Math.min(1, text.length / 10),
          ...(request.mode === "group"
            ? { scores: request.responses.map((r) => Math.min(1, r.length / 10)) }
            : {}),
          ...(request.mode === "pairwise" ? { winner: "tie" as const } : {}),
          metadata: {
            mode: request.mode,
            judge_model: "stand-in",
            template: `${request.mode}-default@1`,
            latency_ms: 1,
            tokens: { prompt: 12, completion: 3 },
            calls: 1,
            samples: 1,
            cached: false,
            explanation: "length/10",
          },
        },
      };
    },
    close: async () => {},
  };
}

describe("judge server (HTTP + gRPC)", () => {
  const service = standInService();
  let server: JudgeServer;
  let client: ProtoJudgeClient;

  beforeAll(async () => {
    server = await startJudgeServer(service, {
      httpHost: "127.0.0.1",
      httpPort: 0,
      grpcHost: "127.0.0.1",
      grpcPort: 0,
      log: pino({ level: "silent" }),
    });
    client = new JudgeClient(server.grpcAddress).raw;
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.httpUrl}/v1/judge`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  const grpcJudge = (request: Record<string, unknown>) =>
    new Promise<JudgeResponse__Output>((resolve, reject) =>
      client.Judge(request, new Metadata(), (err: ServiceError | null, res?: JudgeResponse__Output) =>
        err || !res ? reject(err) : resolve(res),
      ),
    );

  it("answers the minimal pointwise contract with the score and its metadata at the top level", async () => {
    const request = {
      mode: "pointwise",
      task: "Capital of France?",
      response: "Paris",
      reference: "Paris",
      rubric: "correct?",
    };
    const { status, json } = await post(request);
    expect(status).toBe(200);
    expect(json).toEqual({
      score: 0.5,
      mode: "pointwise",
      judge_model: "stand-in",
      template: "pointwise-default@1",
      latency_ms: 1,
      tokens: { prompt: 12, completion: 3 },
      calls: 1,
      samples: 1,
      cached: false,
      explanation: "length/10",
    });
    expect(service.seen.at(-1)).toMatchObject(request);
  });

  it("refuses a bad body with 400 INVALID_REQUEST naming the problem, without calling the service", async () => {
    const before = service.seen.length;
    const missing = await post({ mode: "pointwise", response: "Paris" });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({
      error: { code: "INVALID_REQUEST", message: expect.stringMatching(/task/) },
    });
    const unknownMode = await post({ mode: "vibes", task: "t", response: "r" });
    expect(unknownMode).toMatchObject({ status: 400, json: { error: { code: "INVALID_REQUEST" } } });
    const notJson = await post("{not json");
    expect(notJson).toMatchObject({ status: 400, json: { error: { code: "INVALID_REQUEST" } } });
    expect(service.seen.length).toBe(before);
  });

  it.each(["PARSE_ERROR", "COUNT_MISMATCH", "BACKEND_UNAVAILABLE", "TIMEOUT", "CIRCUIT_OPEN"] as const)(
    "a %s failure is a non-2xx status with { error: { code, message } }",
    async (code) => {
      const { status, json } = await post({ mode: "pointwise", task: "t", response: `fail:${code}` });
      expect(status).toBe(HTTP_STATUS[code]);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(json).toEqual({ error: { code, message: `stand-in fail:${code}` } });
    },
  );

  it("a service that throws is a 500 INTERNAL, never a score", async () => {
    const { status, json } = await post({ mode: "pointwise", task: "t", response: "throw" });
    expect(status).toBe(500);
    expect(json).toEqual({ error: { code: "INTERNAL", message: "internal judge error" } });
  });

  it("group and pairwise results keep their scores / winner", async () => {
    const group = await post({ mode: "group", task: "t", responses: ["ab", "abcd"] });
    expect(group.json).toMatchObject({ score: 0.6, scores: [0.2, 0.4], mode: "group" });
    const pair = await post({ mode: "pairwise", task: "t", responses: ["a", "b"] });
    expect(pair.json).toMatchObject({ winner: "tie", mode: "pairwise" });
  });

  it("a client hanging up cancels its judgment", async () => {
    const controller = new AbortController();
    const pending = fetch(`${server.httpUrl}/v1/judge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mode: "pointwise", task: "t", response: "hang" }),
      signal: controller.signal,
    }).catch(() => "aborted");
    await expect.poll(() => service.seen.at(-1)).toMatchObject({ response: "hang" });
    const signal = service.signals.at(-1);
    controller.abort();
    expect(await pending).toBe("aborted");
    await expect.poll(() => signal?.aborted).toBe(true);
  });

  it("serves the same request language over gRPC: a score, a typed failure, an invalid request", async () => {
    const ok = await grpcJudge({
      mode: "JUDGE_MODE_REFERENCE",
      task: "t",
      response: "Paris",
      reference: "Paris",
    });
    expect(ok.outcome).toBe("score");
    expect(ok.score).toMatchObject({
      score: 0.5,
      winner: "JUDGE_WINNER_UNSPECIFIED",
      metadata: {
        mode: "reference",
        judge_model: "stand-in",
        prompt_tokens: "12",
        completion_tokens: "3",
        cached: false,
      },
    });
    expect(service.seen.at(-1)).toEqual({
      mode: "reference",
      task: "t",
      response: "Paris",
      reference: "Paris",
      samples: 1,
    });

    const failed = await grpcJudge({ mode: "JUDGE_MODE_POINTWISE", task: "t", response: "fail:PARSE_ERROR" });
    expect(failed).toMatchObject({
      outcome: "error",
      error: { code: "JUDGE_ERROR_PARSE_ERROR", message: "stand-in fail:PARSE_ERROR" },
    });

    const noMode = await grpcJudge({ task: "t", response: "x" });
    expect(noMode).toMatchObject({ outcome: "error", error: { code: "JUDGE_ERROR_INVALID_REQUEST" } });
    const badGrader = await grpcJudge({ mode: "JUDGE_MODE_RULE", response: "x", grader_json: "{nope" });
    expect(badGrader).toMatchObject({
      outcome: "error",
      error: { code: "JUDGE_ERROR_INVALID_REQUEST", message: expect.stringMatching(/grader/) },
    });

    const rule = await grpcJudge({
      mode: "JUDGE_MODE_RULE",
      response: "Paris",
      reference: "Paris",
      grader_json: '{"type":"string_check","operation":"eq"}',
    });
    expect(rule.outcome).toBe("score");
    expect(service.seen.at(-1)).toEqual({
      mode: "rule",
      response: "Paris",
      reference: "Paris",
      grader: { type: "string_check", operation: "eq" },
    });
  });

  it("exposes health and Prometheus metrics: requests by mode, failures by code, latency, tokens", async () => {
    expect(await (await fetch(`${server.httpUrl}/healthz`)).json()).toEqual({ status: "ok" });
    const text = await (await fetch(`${server.httpUrl}/metrics`)).text();
    expect(text).toMatch(/rlf_judge_requests_total\{mode="pointwise",transport="http",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/rlf_judge_requests_total\{mode="reference",transport="grpc",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/rlf_judge_failures_total\{mode="pointwise",code="PARSE_ERROR"\} [1-9]/);
    expect(text).toMatch(/rlf_judge_failures_total\{mode="invalid",code="INVALID_REQUEST"\} [1-9]/);
    expect(text).toMatch(/rlf_judge_request_duration_seconds_count\{mode="pointwise",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/rlf_judge_tokens_total\{mode="pointwise",kind="prompt"\} [1-9]/);
  });

  it("names every metric rlf_judge_… once (process metrics too), as the README does", async () => {
    const scraped = scrapedMetricNames(await (await fetch(`${server.httpUrl}/metrics`)).text());
    expect(scraped).toContain("rlf_judge_process_cpu_user_seconds_total");
    expect(scraped).toContain("rlf_judge_nodejs_eventloop_lag_seconds");
    for (const name of scraped) {
      expect(name).toMatch(/^rlf_judge_/);
      expect(name.lastIndexOf("rlf_judge_")).toBe(0);
      expect(name).not.toContain("process_process");
    }
    const documented = documentedMetricNames(new URL("../../README.md", import.meta.url), "rlf_judge_");
    expect(documented).toContain("rlf_judge_requests_total");
    expect(documented).toContain("rlf_judge_process_cpu_user_seconds_total");
    for (const name of documented) expect(scraped).toContain(name);
  });
});
