// The rule components (rule-components.ts): the shared rule language scored against the rollout's
// answer and the task's gold answers, with the rollout's own rules around it (a missing answer is 0, a
// task without golds is NO_GOLD_ANSWERS unless the grader has its own reference, a bad formula is
// refused when the config is parsed).

import { fuzzySimilarity } from "@rlfactory/rewards";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { isRewardConfigError } from "./errors.ts";
import { createRewardFn, parseRewardConfig } from "./reward-config.ts";
import { exactMatchComponent, f1Component, stringCheckComponent } from "./rule-components.ts";

const tools = {
  call: () => Promise.reject(new Error("rule components call no tool")),
};

const createExactMatch = (entry: { type: "exact_match"; weight: number; name?: string }) =>
  exactMatchComponent.create(entry);
const createF1 = (entry: { type: "f1"; weight: number; name?: string }) => f1Component.create(entry);

describe("exact_match and f1 components", () => {
  const em = createExactMatch({ type: "exact_match", weight: 1 });
  const f1 = createF1({ type: "f1", weight: 1, name: "f1_answer" });

  it("score the answer against the task's golds (list, string or {target})", async () => {
    expect(em.name).toBe("exact_match");
    expect(f1.name).toBe("f1_answer");
    expect(await em.score(rewardInput({ answer: "william shakespeare" }), { tools })).toEqual({ value: 1 });
    const target = rewardInput({
      task: qaTask({ target: ["Paris", "City of Paris"] }),
      answer: "the city of Paris",
    });
    expect(await em.score(target, { tools })).toEqual({ value: 1 });
    expect((await f1.score(rewardInput({ answer: "Shakespeare" }), { tools })).value).toBeCloseTo(2 / 3, 12);
  });

  it("a missing answer is 0, not an error", async () => {
    expect(await em.score(rewardInput({ answer: null }), { tools })).toEqual({
      value: 0,
      detail: "no answer",
    });
    expect(await f1.score(rewardInput({ answer: null }), { tools })).toEqual({
      value: 0,
      detail: "no answer",
    });
  });

  it("a task without gold answers is a config error naming the task", async () => {
    const input = rewardInput({ task: qaTask(undefined, {}, "no-golds") });
    const err = await Promise.resolve()
      .then(() => em.score(input, { tools }))
      .catch((e: unknown) => e);
    expect(isRewardConfigError(err)).toBe(true);
    expect(err).toMatchObject({ component: "exact_match", code: "NO_GOLD_ANSWERS" });
    expect((err as Error).message).toContain("task no-golds");
  });
});

describe("the other rule graders as components", () => {
  it("take every gold answer as a reference: the best over them counts", async () => {
    const reward = createRewardFn([
      { type: "string_check", operation: "icontains", name: "mentions" },
      { type: "text_similarity", metric: "fuzzy_match", name: "fuzzy", weight: 0 },
    ]);
    const input = rewardInput({ task: qaTask(["Lyon", "Paris"]), answer: "It is PARIS" });
    const result = await reward.score(input, { tools });
    expect(result.components.mentions).toBe(1);
    const best = Math.max(fuzzySimilarity("It is PARIS", "Lyon"), fuzzySimilarity("It is PARIS", "Paris"));
    expect(best).toBeGreaterThan(fuzzySimilarity("It is PARIS", "Lyon"));
    expect(result.components.fuzzy).toBe(best);
    expect(result.reward).toBe(1);
  });

  it("a grader with its own reference needs no gold answers", async () => {
    const own = stringCheckComponent.create({
      type: "string_check",
      operation: "eq",
      reference: "42",
      weight: 1,
    });
    const input = rewardInput({ task: qaTask(undefined, {}, "no-golds"), answer: "42" });
    expect(await own.score(input, { tools })).toEqual({ value: 1 });
  });

  it("a multi formula that does not compile is refused when the config is parsed, naming the name", () => {
    expect(() =>
      parseRewardConfig([
        { type: "multi", graders: { em: { type: "exact_match" } }, calculate_output: "em + f1" },
      ]),
    ).toThrow(/invalid reward config[\s\S]*unknown name "f1"/);
  });

  it("a text over the similarity limit makes the reward null with RULE_INVALID", async () => {
    const reward = createRewardFn([{ type: "text_similarity", metric: "fuzzy_match" }]);
    const result = await reward.score(rewardInput({ answer: "x".repeat(100_001) }), { tools });
    expect(result.reward).toBeNull();
    expect(result.error).toMatchObject({ component: "text_similarity", code: "RULE_INVALID" });
  });
});
