// The judge component and HttpJudge against a real HTTP judge on 127.0.0.1 (fastify) speaking the
// judge service's contract: good verdicts, every way a judge can fail (never a 0), and the fallback
// policy (fail / rule / skip). The real judge service is exercised in test/judge/.
import { setTimeout as sleep } from "node:timers/promises";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRewardInfraError, type RewardScoringError } from "./errors.ts";
import { HttpJudge } from "./http-judge.ts";
import { createJudge } from "./judge.ts";
import { createRewardFn, parseRewardConfig } from "./reward-config.ts";
import type { Judge, RewardContext } from "./types.ts";

const tools = { call: () => Promise.reject(new Error("the judge calls no tool")) };

describe("judge", () => {
  let app: FastifyInstance;
  let base: string;
  const requests: unknown[] = [];
  const stopSlow = new AbortController();

  beforeAll(async () => {
    app = Fastify({ forceCloseConnections: true });
    app.post("/good/v1/judge", async (req) => {
      requests.push(req.body);
      return { score: 0.75, explanation: "mostly right\nsecond line", extra: "ignored" };
    });
    app.post("/down/v1/judge", async (_, reply) => reply.code(503).send("judge overloaded"));
    app.post("/typed/v1/judge", async (_, reply) =>
      reply.code(503).send({ error: { code: "BACKEND_UNAVAILABLE", message: "no judge model configured" } }),
    );
    app.post("/range/v1/judge", async () => ({ score: 1.5 }));
    app.post("/text/v1/judge", async (_, reply) => reply.type("text/plain").send("SCORE: 1"));
    app.post("/slow/v1/judge", async () => {
      await sleep(10_000, undefined, { signal: stopSlow.signal }).catch(() => {});
      return { score: 1 };
    });
    base = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    stopSlow.abort();
    await app.close();
  });

  const judgeComponent = createJudge({ type: "judge", weight: 1, deadline_ms: 2_000 });
  const scoreWith = (judge: Judge | undefined, overrides = {}, ctx: Partial<RewardContext> = {}) =>
    Promise.resolve(
      judgeComponent.score(rewardInput(overrides), { tools, ...(judge ? { judge } : {}), ...ctx }),
    ).catch((e: unknown) => e as RewardScoringError);

  it("posts the judge contract (reference mode with golds) and returns the judge's score and explanation", async () => {
    const task = qaTask(["Shakespeare", "W. Shakespeare"], { question: "Who wrote Hamlet, exactly?" }, "q-9");
    const out = await scoreWith(new HttpJudge(`${base}/good/`), {
      task,
      answer: "William Shakespeare",
      sampledTexts: ["<think>hmm</think>", "<answer>William Shakespeare</answer>"],
    });
    expect(out).toEqual({ value: 0.75, detail: "mostly right" });
    expect(requests.at(-1)).toEqual({
      mode: "reference",
      task: "Who wrote Hamlet, exactly?",
      response: "William Shakespeare",
      reference: "Shakespeare | W. Shakespeare",
    });
  });

  it("without golds asks pointwise; sends the component's rubric; can judge the whole trajectory", async () => {
    const component = createJudge({
      type: "judge",
      weight: 1,
      rubric_id: "helpfulness",
      rubric: "Is it helpful?",
      judged: "trajectory",
    });
    await component.score(
      rewardInput({
        task: qaTask([]),
        sampledTexts: ["<think>a</think>", "<answer>b</answer>"],
        answer: "b",
      }),
      { tools, judge: new HttpJudge(`${base}/good`) },
    );
    expect(requests.at(-1)).toEqual({
      mode: "pointwise",
      task: "Who wrote Hamlet?",
      response: "<think>a</think>\n<answer>b</answer>",
      rubric: "Is it helpful?",
      rubric_id: "helpfulness",
    });
  });

  it("falls back to the last user message for the question; no answer scores 0 without a request", async () => {
    const before = requests.length;
    expect(await scoreWith(new HttpJudge(`${base}/good`), { answer: null })).toEqual({
      value: 0,
      detail: "no answer",
    });
    expect(requests.length).toBe(before);
    await scoreWith(new HttpJudge(`${base}/good`));
    expect(requests.at(-1)).toMatchObject({ task: "Who wrote Hamlet?" });
  });

  it("a typed failure of the judge service is JUDGE_<code> with its message", async () => {
    const err = await scoreWith(new HttpJudge(`${base}/typed`));
    expect(isRewardInfraError(err)).toBe(true);
    expect(err).toMatchObject({ component: "judge", code: "JUDGE_BACKEND_UNAVAILABLE" });
    expect((err as Error).message).toMatch(/HTTP 503 BACKEND_UNAVAILABLE: no judge model configured/);
  });

  describe("fallback policy", () => {
    const failing = () => new HttpJudge(`${base}/typed`);

    it('"fail" (the default) keeps the failure: no value', async () => {
      const component = createJudge({ type: "judge", weight: 1, fallback: "fail" });
      const err = await Promise.resolve(component.score(rewardInput(), { tools, judge: failing() })).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "JUDGE_BACKEND_UNAVAILABLE" });
    });

    it('"rule" uses the fallback rule\'s value and says so in the detail', async () => {
      const component = createJudge({
        type: "judge",
        weight: 1,
        fallback: "rule",
        fallback_rule: { type: "f1" },
      });
      const input = rewardInput({ task: qaTask(["William Shakespeare"]), answer: "Shakespeare" });
      const out = await component.score(input, { tools, judge: failing() });
      // F1 of "shakespeare" against "william shakespeare": precision 1, recall 1/2.
      expect(out.value).toBeCloseTo(2 / 3, 10);
      expect(out.detail).toMatch(
        /^fallback rule f1 \(judge failed: JUDGE_BACKEND_UNAVAILABLE .*no judge model configured/,
      );
      const healthy = await component.score(input, { tools, judge: new HttpJudge(`${base}/good`) });
      expect(healthy).toEqual({ value: 0.75, detail: "mostly right" });
    });

    it('"skip" marks the judge skipped with the reason — not a plain 0', async () => {
      const component = createJudge({ type: "judge", weight: 1, fallback: "skip" });
      const out = await component.score(rewardInput(), { tools, judge: failing() });
      expect(out).toMatchObject({
        skipped: true,
        detail: expect.stringMatching(/^skipped \(judge failed: JUDGE_BACKEND_UNAVAILABLE/),
      });
    });

    it('"skip" in a composed reward: the judge is out of the total and of the components, the reason in details', async () => {
      const reward = createRewardFn(
        parseRewardConfig([
          { type: "judge", weight: 1, fallback: "skip" },
          { type: "exact_match", weight: 0.5 },
        ]),
      );
      const input = rewardInput({ task: qaTask(["Paris"]), answer: "paris" });
      const out = await reward.score(input, { tools, judge: failing() });
      expect(out.error).toBeNull();
      expect(out.components).toEqual({ exact_match: 1 });
      expect(out.reward).toBe(0.5);
      expect(out.details.judge).toMatch(/^skipped \(judge failed: JUDGE_BACKEND_UNAVAILABLE/);
    });

    it("never falls back from a missing judge or a cancelled scoring", async () => {
      const component = createJudge({ type: "judge", weight: 1, fallback: "skip" });
      const noJudge = await Promise.resolve(component.score(rewardInput(), { tools })).catch(
        (e: unknown) => e,
      );
      expect(noJudge).toMatchObject({ kind: "config", code: "NO_JUDGE" });
      const abort = new AbortController();
      abort.abort();
      const deaf: Judge = { score: () => new Promise(() => {}) };
      const cancelled = await Promise.resolve(
        component.score(rewardInput(), { tools, judge: deaf, signal: abort.signal }),
      ).catch((e: unknown) => e);
      expect(cancelled).toMatchObject({ code: "CANCELLED" });
    });

    it("refuses a rule fallback without a rule, and a rule with another policy", () => {
      expect(() => parseRewardConfig([{ type: "judge", fallback: "rule" }])).toThrow(
        /fallback "rule" needs fallback_rule/,
      );
      expect(() =>
        parseRewardConfig([{ type: "judge", fallback: "skip", fallback_rule: { type: "exact_match" } }]),
      ).toThrow(/fallback_rule is used only with fallback "rule"/);
    });
  });

  it.each([
    ["down", "JUDGE_HTTP_ERROR", /HTTP 503: judge overloaded/],
    ["range", "JUDGE_BAD_RESPONSE", /score/],
    ["text", "JUDGE_BAD_RESPONSE", /not JSON: SCORE: 1/],
  ])("a %s judge is an infrastructure error %s, not a 0", async (route, code, message) => {
    const err = await scoreWith(new HttpJudge(`${base}/${route}`));
    expect(isRewardInfraError(err)).toBe(true);
    expect(err).toMatchObject({ component: "judge", code });
    expect((err as Error).message).toMatch(message);
  });

  it("an unreachable judge is JUDGE_UNAVAILABLE", async () => {
    const closed = Fastify();
    const url = await closed.listen({ host: "127.0.0.1", port: 0 });
    await closed.close();
    const err = await scoreWith(new HttpJudge(url));
    expect(err).toMatchObject({ code: "JUDGE_UNAVAILABLE" });
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("a slow judge times out: the client's timeout, or the component's deadline", async () => {
    expect(await scoreWith(new HttpJudge(`${base}/slow`, { timeoutMs: 150 }))).toMatchObject({
      code: "JUDGE_TIMEOUT",
      message: expect.stringMatching(/no answer in 150 ms/),
    });
    const component = createJudge({ type: "judge", name: "judge_llm", weight: 1, deadline_ms: 150 });
    const err = await Promise.resolve(
      component.score(rewardInput(), { tools, judge: new HttpJudge(`${base}/slow`) }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      component: "judge_llm",
      code: "JUDGE_TIMEOUT",
      message: "no verdict within 150 ms",
    });
  });

  it("enforces the deadline on a judge that ignores its signal, and honours the caller's abort", async () => {
    const deaf: Judge = { score: () => new Promise(() => {}) };
    const component = createJudge({ type: "judge", weight: 1, deadline_ms: 100 });
    const timedOut = await Promise.resolve(component.score(rewardInput(), { tools, judge: deaf })).catch(
      (e: unknown) => e,
    );
    expect(timedOut).toMatchObject({ code: "JUDGE_TIMEOUT" });
    const abort = new AbortController();
    const pending = scoreWith(deaf, {}, { signal: abort.signal });
    abort.abort();
    expect(await pending).toMatchObject({ code: "CANCELLED" });
  });

  it("a judge component with no judge configured is a config error; odd scores are refused", async () => {
    expect(await scoreWith(undefined)).toMatchObject({ kind: "config", code: "NO_JUDGE" });
    const odd: Judge = { score: async () => ({ score: Number.NaN }) };
    expect(await scoreWith(odd)).toMatchObject({ code: "JUDGE_BAD_RESPONSE" });
    const throwing: Judge = {
      score: async () => {
        throw new Error("model server said no");
      },
    };
    expect(await scoreWith(throwing)).toMatchObject({
      code: "JUDGE_ERROR",
      message: "judge failed: model server said no",
    });
  });

  it("refuses a URL that is not http(s)", () => {
    expect(() => new HttpJudge("ftp://example.invalid")).toThrow(
      'HttpJudge: "ftp://example.invalid" is not an http(s) URL',
    );
  });
});
