// One reward language: every rule of @rlfactory/rewards' grader language, over the same cases, through
// both entry points — the judge service's rule mode (`mode: "rule"`, graded in its worker pool) and the
// rollout's reward config (a rule component scoring the answer against the task's gold answer) — must
// give equal scores. A rule that needs a reference fails in both when there is none.
import { createJudgeService, type JudgeOutcome, parseJudgeConfig } from "@rlfactory/judge";
import {
  GRADER_TYPES,
  type GraderSpec,
  SIMILARITY_METRICS,
  STRING_CHECK_OPERATIONS,
} from "@rlfactory/rewards";
import { createRewardFn } from "@rlfactory/rollout";
import { qaTask, rewardInput } from "@rlfactory/test-support/reward-fixtures";
import { afterAll, describe, expect, it } from "vitest";

const RULES: GraderSpec[] = [
  ...STRING_CHECK_OPERATIONS.map((operation): GraderSpec => ({ type: "string_check", operation })),
  ...SIMILARITY_METRICS.map((metric): GraderSpec => ({ type: "text_similarity", metric })),
  ...SIMILARITY_METRICS.map(
    (metric): GraderSpec => ({ type: "text_similarity", metric, pass_threshold: 0.5 }),
  ),
  { type: "exact_match" },
  { type: "f1" },
  { type: "string_check", operation: "icontains", reference: "paris" },
  {
    type: "multi",
    graders: {
      em: { type: "exact_match" },
      f1: { type: "f1" },
      near: {
        type: "multi",
        graders: {
          l: { type: "text_similarity", metric: "rouge_l" },
          b: { type: "text_similarity", metric: "bleu" },
        },
        calculate_output: "max(l, b)",
      },
    },
    calculate_output: "0.5 * em + 0.3 * f1 + 0.4 * near - 0.1",
  },
];

/** [response, reference]: exact, case and punctuation, articles, partial overlap, unrelated, unicode. */
const CASES: [string, string][] = [
  ["Paris", "Paris"],
  ["  PARIS.\n", "paris"],
  ["The answer is the city of Paris", "Paris"],
  ["police kill the gunman", "police killed the gunman"],
  ["the cat sat", "the cat sat on the mat"],
  ["Lyon", "Paris"],
  ["yes", "no"],
  ["Über die Brücke gehen", "über die brücke"],
];

const judge = createJudgeService(parseJudgeConfig({}));
afterAll(() => judge.close());

function score(outcome: JudgeOutcome): number {
  if (!outcome.ok) throw new Error(`the judge failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.result.score;
}

const tools = { call: () => Promise.reject(new Error("rule rewards call no tool")) };

describe("the judge's rule mode and the rollout's rule components give equal scores", () => {
  it("covers every grader type of the language", () => {
    expect(new Set(RULES.map((r) => r.type))).toEqual(new Set(GRADER_TYPES));
  });

  it.each(RULES.map((rule) => [JSON.stringify(rule), rule] as const))("%s", async (_, rule) => {
    const reward = createRewardFn([{ ...rule, name: "rule" }]);
    const scores = await Promise.all(
      CASES.map(async ([response, reference]) => {
        const viaJudge = score(await judge.judge({ mode: "rule", response, reference, grader: rule }));
        const viaRollout = await reward.score(rewardInput({ task: qaTask([reference]), answer: response }), {
          tools,
        });
        expect(viaRollout.error).toBeNull();
        return { response, reference, judge: viaJudge, rollout: viaRollout.components.rule };
      }),
    );
    for (const s of scores) expect(s.rollout, `${s.response} vs ${s.reference}`).toBe(s.judge);
    // Each rule tells some cases apart (a rule scoring every case alike would compare nothing).
    expect(new Set(scores.map((s) => s.judge)).size).toBeGreaterThan(1);
  });

  it("a rule needing a reference fails in both without one (never a 0)", async () => {
    const rule: GraderSpec = { type: "exact_match" };
    const viaJudge = await judge.judge({ mode: "rule", response: "Paris", grader: rule });
    expect(viaJudge).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    const viaRollout = await createRewardFn([rule]).score(
      rewardInput({ task: qaTask([]), answer: "Paris" }),
      { tools },
    );
    expect(viaRollout).toMatchObject({ reward: null, error: { code: "NO_GOLD_ANSWERS" } });
  });
});
