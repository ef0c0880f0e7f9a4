// `rlf judge` as a real child process, against the simulated OpenAI-compatible judge model
// (test/support/src/simulated-judge.ts): the HTTP contract, the gRPC mirror, the concurrency limit, the
// cache, a dead backend, no backend at all, the rollout engine's GrpcJudge + fallback policy against the real
// service, and one trace from a caller's span through the judge (real OTLP receiver).
import { randomBytes } from "node:crypto";
import { createJudge, createRewardFn, GrpcJudge } from "@rlfactory/rollout";
import { type ChildJudge, cleanEnv, spawnJudge, writeConfig } from "@rlfactory/test-support/judge-harness";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import { type SimulatedJudge, startSimulatedJudge } from "@rlfactory/test-support/simulated-judge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const tools = { call: () => Promise.reject(new Error("the judge component calls no tool")) };

/** A rubric with an explicit 0–10 scale, so "<score>8</score>" is 0.8 by the config alone. */
const RUBRICS = { e2e: { version: 3, text: "Is the response correct?", scale: { min: 0, max: 10 } } };

describe("rlf judge with a model backend", () => {
  let sim: SimulatedJudge;
  let receiver: OtlpReceiver;
  let judge: ChildJudge;

  beforeAll(async () => {
    // Every judge call answers 8; a little latency so that concurrent requests overlap.
    sim = await startSimulatedJudge({
      script: () => "The response is mostly right. <score>8</score>",
      latencyMs: 20,
    });
    receiver = await startOtlpReceiver();
    const config = writeConfig({
      backend: { base_url: sim.url, model: "sim-judge", retries: 0, max_concurrency: 4 },
      rubrics: RUBRICS,
    });
    judge = await spawnJudge(
      ["--config", config],
      cleanEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      }),
    );
  });
  afterAll(async () => {
    await judge?.stop();
    await sim?.close();
    await receiver?.close();
  });

  it("answers the minimal pointwise contract: a score in [0, 1] and its metadata", async () => {
    const before = sim.requests.length;
    const { status, json } = await judge.post({
      mode: "pointwise",
      task: "What is the capital of France?",
      response: "Paris",
      reference: "Paris",
      rubric: "Is the answer correct?",
    });
    expect(status).toBe(200);
    // The pointwise template asks for 1–10: 8 → (8 − 1) / 9.
    expect(json.score).toBeCloseTo(7 / 9, 10);
    expect(json).toMatchObject({
      mode: "pointwise",
      judge_model: "sim-judge",
      template: expect.stringMatching(/^inline:.+@\d+$/),
      cached: false,
      calls: 1,
      samples: 1,
    });
    expect(sim.requests.length).toBe(before + 1);
    const prompt = JSON.stringify(sim.requests.at(-1)?.body.messages);
    expect(prompt).toContain("What is the capital of France?");
    expect(prompt).toContain("Is the answer correct?");
  });

  it("refuses a bad body with 400 INVALID_REQUEST, without calling the model", async () => {
    const before = sim.requests.length;
    const { status, json } = await judge.post({ mode: "pointwise", response: "Paris" });
    expect(status).toBe(400);
    expect(json).toMatchObject({
      error: { code: "INVALID_REQUEST", message: expect.stringMatching(/task/) },
    });
    expect(sim.requests.length).toBe(before);
  });

  it("serves the same judgment over gRPC", async () => {
    const res = await judge.grpc({
      mode: "JUDGE_MODE_REFERENCE",
      task: "Who wrote Hamlet?",
      response: "Shakespeare",
      reference: "William Shakespeare",
      rubric_id: "e2e",
    });
    expect(res).toMatchObject({
      outcome: "score",
      score: { score: 0.8, metadata: { mode: "reference", judge_model: "sim-judge", template: "e2e@3" } },
    });
  });

  it("100 concurrent requests all get their score, never more than max_concurrency (4) at the model", async () => {
    const before = sim.requests.length;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        judge.post({ mode: "pointwise", task: "Count", response: `answer number ${i}`, rubric_id: "e2e" }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers.every((a) => a.json.score === 0.8)).toBe(true);
    expect(sim.requests.length - before).toBe(100);
    expect(sim.maxInFlight()).toBeLessThanOrEqual(4);
  });

  it("a repeated deterministic request is answered from the cache: one model call", async () => {
    const request = {
      mode: "pointwise",
      task: "Cache me",
      response: `unique ${randomBytes(4).toString("hex")}`,
    };
    const before = sim.requests.length;
    const first = await judge.post(request);
    const second = await judge.post(request);
    expect(first.json).toMatchObject({ cached: false });
    expect(second.json).toMatchObject({ cached: true, score: first.json.score });
    expect(sim.requests.length).toBe(before + 1);
    const metrics = await (await fetch(`${judge.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/rlf_judge_cache_hits_total\{mode="pointwise"\} [1-9]/);
  });

  it("the rollout engine's GrpcJudge and judge component score through the real service over gRPC", async () => {
    const component = createJudge({ type: "judge", weight: 1, rubric_id: "e2e" });
    // Golds of its own: a request no earlier test made (the cache would answer it).
    const task = qaTask(["William Shakespeare", "Will Shakespeare"]);
    const before = sim.requests.length;
    const out = await component.score(rewardInput({ task, answer: "Shakespeare" }), {
      tools,
      judge: new GrpcJudge(judge.grpcAddress),
    });
    expect(out.value).toBe(0.8);
    const sent = JSON.stringify(sim.requests.at(-1)?.body.messages);
    expect(sim.requests.length).toBe(before + 1);
    // Reference mode: the gold answers joined by " | ".
    expect(sent).toContain("William Shakespeare | Will Shakespeare");
  });

  it("continues the caller's trace: the judge's SERVER spans are children of the caller's span", async () => {
    const traceId = randomBytes(16).toString("hex");
    const httpParent = randomBytes(8).toString("hex");
    const grpcParent = randomBytes(8).toString("hex");
    await judge.post(
      { mode: "rule", response: "a", reference: "a", grader: { type: "string_check", operation: "eq" } },
      { traceparent: `00-${traceId}-${httpParent}-01` },
    );
    await judge.grpc(
      { mode: "JUDGE_MODE_POINTWISE", task: "Trace me", response: "traced", rubric_id: "e2e" },
      { traceparent: `00-${traceId}-${grpcParent}-01` },
    );
    const spans = await receiver.waitFor((s) => s.traceId === traceId && s.kind === "SERVER", 10_000, 2);
    expect(spans.find((s) => s.parentSpanId === httpParent)).toMatchObject({
      name: "POST /v1/judge",
      serviceName: "rlf-judge",
      attributes: expect.objectContaining({ "judge.mode": "rule", "judge.score": 1 }),
    });
    expect(spans.find((s) => s.parentSpanId === grpcParent)).toMatchObject({
      name: "rlfactory.v1.Judge/Judge",
      serviceName: "rlf-judge",
      attributes: expect.objectContaining({ "judge.mode": "pointwise" }),
    });
  });
});

describe("rlf judge with a dead backend", () => {
  let judge: ChildJudge;

  beforeAll(async () => {
    const sim = await startSimulatedJudge({ script: () => "<score>1</score>" });
    await sim.close(); // nothing listens on its port any more
    judge = await spawnJudge([
      "--config",
      writeConfig({ backend: { base_url: sim.url, model: "gone", retries: 0 }, rubrics: RUBRICS }),
    ]);
  });
  afterAll(async () => {
    await judge?.stop();
  });

  it("answers 503 BACKEND_UNAVAILABLE, never a score", async () => {
    const { status, json } = await judge.post({ mode: "pointwise", task: "t", response: "r" });
    expect(status).toBe(503);
    expect(json).toEqual({ error: { code: "BACKEND_UNAVAILABLE", message: expect.any(String) } });
  });

  it("the trainer's fallback policy applies: fail → reward null; rule → the rule's value; skip → left out", async () => {
    const input = rewardInput({ task: qaTask(["William Shakespeare"]), answer: "Shakespeare" });
    const ctx = { tools, judge: new GrpcJudge(judge.grpcAddress) };

    const failing = createRewardFn([
      { type: "exact_match", weight: 0 },
      { type: "judge", weight: 1 },
    ]);
    const failed = await failing.score(input, ctx);
    expect(failed.reward).toBeNull();
    expect(failed.error).toMatchObject({ component: "judge", code: "JUDGE_BACKEND_UNAVAILABLE" });

    const ruled = await createRewardFn([
      { type: "judge", weight: 1, fallback: "rule", fallback_rule: { type: "f1" } },
    ]).score(input, ctx);
    // Token F1 of "shakespeare" against "william shakespeare": precision 1, recall 1/2.
    expect(ruled.reward).toBeCloseTo(2 / 3, 10);
    expect(ruled.details.judge).toMatch(/^fallback rule f1 \(judge failed: JUDGE_BACKEND_UNAVAILABLE/);

    const skipping = createJudge({ type: "judge", weight: 1, fallback: "skip" });
    expect(await skipping.score(input, ctx)).toMatchObject({
      skipped: true,
      detail: expect.stringMatching(/^skipped \(judge failed: JUDGE_BACKEND_UNAVAILABLE/),
    });
  });
});

describe("rlf judge with no backend configured", () => {
  let judge: ChildJudge;

  beforeAll(async () => {
    judge = await spawnJudge([]); // no --config, no JUDGE_* variables
  });
  afterAll(async () => {
    await judge?.stop();
  });

  it("still serves rule graders", async () => {
    const { status, json } = await judge.post({
      mode: "rule",
      response: "Paris",
      reference: "paris",
      grader: { type: "string_check", operation: "ieq" },
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ score: 1, mode: "rule", judge_model: "rule" });
  });

  it("answers model judgments with BACKEND_UNAVAILABLE saying how to configure a backend, and logs it", async () => {
    const { status, json } = await judge.post({ mode: "pointwise", task: "t", response: "r" });
    expect(status).toBe(503);
    expect(json).toMatchObject({
      error: { code: "BACKEND_UNAVAILABLE", message: expect.stringMatching(/JUDGE_BASE_URL.*JUDGE_MODEL/) },
    });
    expect(judge.stderr()).toMatch(/model judgments answer BACKEND_UNAVAILABLE.*JUDGE_BASE_URL/);
  });
});
