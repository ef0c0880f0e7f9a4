// The judge component and GrpcJudge against the real judge service (`rlf judge` as a child process,
// test/support's judge harness) over loopback gRPC, its model backend the simulated judge model: good
// verdicts, every way a judge can fail (never a 0), and the fallback policy (fail / rule / skip). A
// judge that answers outside the contract is a small gRPC server of judge.proto's Judge on loopback.
import { createServer } from "node:net";
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData, status } from "@grpc/grpc-js";
import { loadServiceProto, PROTO_FILES } from "@rlfactory/proto";
import type { ProtoGrpcType } from "@rlfactory/proto/grpc/judge";
import type { JudgeRequest__Output } from "@rlfactory/proto/types/JudgeRequest";
import type { JudgeResponse } from "@rlfactory/proto/types/JudgeResponse";
import { type ChildJudge, spawnJudge, writeConfig } from "@rlfactory/test-support/judge-harness";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import { type SimulatedJudge, startSimulatedJudge } from "@rlfactory/test-support/simulated-judge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRewardInfraError, type RewardScoringError } from "./errors.ts";
import { GrpcJudge, judgeRequestFor } from "./grpc-judge.ts";
import { createJudge } from "./judge.ts";
import { createRewardFn, parseRewardConfig } from "./reward-config.ts";
import type { Judge, RewardContext } from "./types.ts";

const tools = { call: () => Promise.reject(new Error("the judge calls no tool")) };

/** A rubric with an explicit 0–10 scale, so a score of 8 is 0.8 by the config alone. */
const RUBRICS = { e2e: { version: 1, text: "Is the response correct?", scale: { min: 0, max: 10 } } };

/** A judge on loopback that answers outside the contract, by the request's task. */
async function startOddJudge(): Promise<{ address: string; close(): Promise<void> }> {
  const { grpc } = loadServiceProto<ProtoGrpcType>(PROTO_FILES.judge);
  const server = new Server();
  server.addService(grpc.rlfactory.v1.Judge.service, {
    Judge: (call: ServerUnaryCall<JudgeRequest__Output, JudgeResponse>, cb: sendUnaryData<JudgeResponse>) => {
      if (call.request.response === "range") cb(null, { score: { score: 1.5 } });
      else if (call.request.response === "empty") cb(null, {});
      else cb({ code: status.RESOURCE_EXHAUSTED, details: "judge overloaded" });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("judge", () => {
  let sim: SimulatedJudge;
  let live: ChildJudge;
  let dead: ChildJudge;
  const judges: GrpcJudge[] = [];
  const grpcJudge = (address: string, opts: ConstructorParameters<typeof GrpcJudge>[1] = {}) => {
    const judge = new GrpcJudge(address, opts);
    judges.push(judge);
    return judge;
  };

  beforeAll(async () => {
    // The model never answers a question that asks it to hang; every other answer is 8 of 10.
    sim = await startSimulatedJudge({
      script: (req) =>
        req.messages.some((m) => m.content.includes("HANG"))
          ? { hang: true }
          : JSON.stringify({ explanation: "Mostly right.\nThe second line.", score: 8 }),
    });
    [live, dead] = await Promise.all([
      spawnJudge([
        "--config",
        writeConfig({ backend: { base_url: sim.url, model: "sim-judge", retries: 0 }, rubrics: RUBRICS }),
      ]),
      spawnJudge([]), // no backend: every model judgment is BACKEND_UNAVAILABLE
    ]);
  });
  afterAll(async () => {
    for (const judge of judges) judge.close();
    await Promise.all([live?.stop(), dead?.stop()]);
    await sim?.close();
  });

  const judgeComponent = createJudge({ type: "judge", weight: 1, rubric_id: "e2e", deadline_ms: 10_000 });
  const scoreWith = (judge: Judge | undefined, overrides = {}, ctx: Partial<RewardContext> = {}) =>
    Promise.resolve(
      judgeComponent.score(rewardInput(overrides), { tools, ...(judge ? { judge } : {}), ...ctx }),
    ).catch((e: unknown) => e as RewardScoringError);
  /** Every message the judge model was last sent, as one text. */
  const lastPrompt = () => JSON.stringify(sim.requests.at(-1)?.body.messages);

  it("asks in reference mode with golds and returns the judge's score and explanation", async () => {
    const task = qaTask(["Shakespeare", "W. Shakespeare"], { question: "Who wrote Hamlet, exactly?" }, "q-9");
    const query = {
      task,
      answer: "William Shakespeare",
      sampledTexts: ["<answer>William Shakespeare</answer>"],
    };
    expect(judgeRequestFor(query)).toEqual({
      mode: "JUDGE_MODE_REFERENCE",
      task: "Who wrote Hamlet, exactly?",
      response: "William Shakespeare",
      reference: "Shakespeare | W. Shakespeare",
    });
    const before = sim.requests.length;
    const out = await scoreWith(grpcJudge(live.grpcAddress), query);
    expect(out).toEqual({ value: 0.8, detail: "Mostly right." });
    expect(sim.requests.length).toBe(before + 1);
    expect(lastPrompt()).toContain("Who wrote Hamlet, exactly?");
    expect(lastPrompt()).toContain("Shakespeare | W. Shakespeare");
  });

  it("without golds asks pointwise; sends the component's rubric; can judge the whole trajectory", async () => {
    const input = {
      task: qaTask([], { question: "Is this helpful?" }),
      sampledTexts: ["<think>a</think>", "<answer>b</answer>"],
      answer: "b",
    };
    expect(
      judgeRequestFor({ ...input, rubric: "Is it helpful?", rubric_id: "helpfulness", judged: "trajectory" }),
    ).toEqual({
      mode: "JUDGE_MODE_POINTWISE",
      task: "Is this helpful?",
      response: "<think>a</think>\n<answer>b</answer>",
      rubric: "Is it helpful?",
      rubric_id: "helpfulness",
    });
    const component = createJudge({
      type: "judge",
      weight: 1,
      rubric: "Is it helpful at all?",
      judged: "trajectory",
    });
    await component.score(rewardInput(input), { tools, judge: grpcJudge(live.grpcAddress) });
    expect(lastPrompt()).toContain("Is it helpful at all?");
    expect(lastPrompt()).toContain("<think>a</think>\\n<answer>b</answer>");
  });

  it("falls back to the last user message for the question; no answer scores 0 without a request", async () => {
    const before = sim.requests.length;
    expect(await scoreWith(grpcJudge(live.grpcAddress), { answer: null })).toEqual({
      value: 0,
      detail: "no answer",
    });
    expect(sim.requests.length).toBe(before);
    expect(judgeRequestFor({ task: qaTask(["x"]), answer: "y", sampledTexts: [] })).toMatchObject({
      task: "Who wrote Hamlet?",
    });
  });

  it("a typed failure of the judge service is JUDGE_<code> with its message", async () => {
    const err = await scoreWith(grpcJudge(dead.grpcAddress));
    expect(isRewardInfraError(err)).toBe(true);
    expect(err).toMatchObject({ component: "judge", code: "JUDGE_BACKEND_UNAVAILABLE" });
    expect((err as Error).message).toMatch(/BACKEND_UNAVAILABLE: .*JUDGE_BASE_URL/);
  });

  describe("fallback policy", () => {
    const failing = () => grpcJudge(dead.grpcAddress);

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
        rubric_id: "e2e",
        fallback: "rule",
        fallback_rule: { type: "f1" },
      });
      const input = rewardInput({ task: qaTask(["William Shakespeare"]), answer: "Shakespeare" });
      const out = await component.score(input, { tools, judge: failing() });
      // F1 of "shakespeare" against "william shakespeare": precision 1, recall 1/2.
      expect(out.value).toBeCloseTo(2 / 3, 10);
      expect(out.detail).toMatch(/^fallback rule f1 \(judge failed: JUDGE_BACKEND_UNAVAILABLE /);
      const healthy = await component.score(input, { tools, judge: grpcJudge(live.grpcAddress) });
      expect(healthy).toEqual({ value: 0.8, detail: "Mostly right." });
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

  describe("a judge that answers outside the contract", () => {
    let odd: Awaited<ReturnType<typeof startOddJudge>>;
    beforeAll(async () => {
      odd = await startOddJudge();
    });
    afterAll(async () => {
      await odd?.close();
    });

    it.each([
      ["status", "JUDGE_RPC_ERROR", /RESOURCE_EXHAUSTED: judge overloaded/],
      ["range", "JUDGE_BAD_RESPONSE", /score 1.5 is not in \[0, 1\]/],
      ["empty", "JUDGE_BAD_RESPONSE", /neither a score nor an error/],
    ])("a %s answer is an infrastructure error %s, not a 0", async (answer, code, message) => {
      const err = await scoreWith(grpcJudge(odd.address), { answer });
      expect(isRewardInfraError(err)).toBe(true);
      expect(err).toMatchObject({ component: "judge", code });
      expect((err as Error).message).toMatch(message);
    });
  });

  it("an unreachable judge is JUDGE_UNAVAILABLE", async () => {
    const err = await scoreWith(grpcJudge(`127.0.0.1:${await closedPort()}`));
    expect(err).toMatchObject({ code: "JUDGE_UNAVAILABLE" });
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("a slow judge times out: the client's deadline, or the component's", async () => {
    const hanging = { task: qaTask(["x"], { question: "HANG until the deadline" }) };
    expect(await scoreWith(grpcJudge(live.grpcAddress, { timeoutMs: 150 }), hanging)).toMatchObject({
      code: "JUDGE_TIMEOUT",
      message: expect.stringMatching(/no answer in 150 ms/),
    });
    const component = createJudge({ type: "judge", name: "judge_llm", weight: 1, deadline_ms: 150 });
    const err = await Promise.resolve(
      component.score(rewardInput(hanging), { tools, judge: grpcJudge(live.grpcAddress) }),
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
});
