// `judge`: the score a judge (`ctx.judge`, e.g. GrpcJudge: the judge service over gRPC) gives the answer, in [0, 1].
//
// Parameters: `deadline_ms` (default 60000): the judge call is abandoned after it, whether or not the
// judge honours its AbortSignal; `rubric` / `rubric_id` (sent to the judge), `judged` ("answer", the
// default, or "trajectory": the sampled turns). A missing answer scores 0 without asking. Everything
// else that goes wrong is a failure, never a 0: no judge in the context (RewardConfigError NO_JUDGE,
// always an error), the deadline (RewardInfraError JUDGE_TIMEOUT), the caller's abort (CANCELLED,
// always an error), a judge failure (its own RewardInfraError code, e.g. JUDGE_BACKEND_UNAVAILABLE,
// else JUDGE_ERROR), a score that is not a number in [0, 1] (JUDGE_BAD_RESPONSE).
//
// FALLBACK POLICY for those judge failures (`fallback`):
//   "fail" (default)  the failure stands: the trajectory's reward is null with `reward_error` set;
//   "rule"            the value of `fallback_rule` (an inline exact_match / f1 / format component)
//                     replaces the judge's, and `details` says so and why: "fallback rule f1 (judge
//                     failed: JUDGE_TIMEOUT …)";
//   "skip"            the judge is left out of the total and reported as skipped: the score carries
//                     `skipped: true` and a detail "skipped (judge failed: …)" (the reward composer
//                     leaves skipped components out of `reward_components`) — never a silent 0.
import { raceSignal } from "@rlfactory/kit";
import { z } from "zod";
import {
  isRewardConfigError,
  isRewardScoringError,
  oneLine,
  RewardConfigError,
  RewardInfraError,
  type RewardScoringError,
} from "./errors.ts";
import { formatComponent, formatSchema } from "./format.ts";
import type { JudgeRubricOptions } from "./grpc-judge.ts";
import { exactMatchComponent, exactMatchSchema, f1Component, f1Schema } from "./rule-components.ts";
import {
  type ComponentScore,
  componentBaseShape,
  componentName,
  defineRewardComponent,
  type JudgeVerdict,
  type RewardComponent,
  type RewardContext,
  type RewardInput,
} from "./types.ts";

export { GrpcJudge, type GrpcJudgeOptions } from "./grpc-judge.ts";
export type { Judge, JudgeVerdict, RewardJudgeQuery } from "./types.ts";

/** A rule component the judge falls back to (its weight is the judge's; its own is ignored). */
export const fallbackRuleSchema = z.discriminatedUnion("type", [exactMatchSchema, f1Schema, formatSchema]);

export const judgeSchema = z
  .strictObject({
    type: z.literal("judge"),
    ...componentBaseShape,
    deadline_ms: z.number().int().positive().default(60_000),
    rubric: z.string().min(1).optional(),
    rubric_id: z.string().min(1).optional(),
    judged: z.enum(["answer", "trajectory"]).default("answer"),
    fallback: z.enum(["fail", "rule", "skip"]).default("fail"),
    fallback_rule: fallbackRuleSchema.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.fallback === "rule" && c.fallback_rule === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["fallback_rule"],
        message: 'fallback "rule" needs fallback_rule, e.g. { type: "f1" }',
      });
    }
    if (c.fallback !== "rule" && c.fallback_rule !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["fallback_rule"],
        message: `fallback_rule is used only with fallback "rule" (fallback is "${c.fallback}")`,
      });
    }
  });
export type JudgeConfig = z.infer<typeof judgeSchema>;
export type JudgeConfigInput = z.input<typeof judgeSchema>;

/** The component, from its config entry (parsed here too: defaults apply to a raw entry). */
export function createJudge(entry: JudgeConfigInput | JudgeConfig): RewardComponent {
  const config = judgeSchema.parse(entry);
  const name = componentName(config);
  const judgeOnce = judgeScorer(name, config);
  const rule = config.fallback_rule ? createFallbackRule(config.fallback_rule) : undefined;
  return {
    name,
    weight: config.weight,
    async score(input, ctx): Promise<ComponentScore> {
      try {
        return await judgeOnce(input, ctx);
      } catch (err) {
        const failure = err as RewardScoringError;
        // Never fall back from a config error (no judge) or from a cancelled scoring.
        if (config.fallback === "fail" || isRewardConfigError(err) || failure.code === "CANCELLED") throw err;
        const why = `judge failed: ${failure.code} ${oneLine(failure.message, 200)}`;
        if (config.fallback === "skip") return { value: 0, skipped: true, detail: `skipped (${why})` };
        const fallback = await (rule as RewardComponent).score(input, ctx);
        return {
          value: fallback.value,
          detail: `fallback rule ${config.fallback_rule?.type} (${why})${fallback.detail ? `: ${fallback.detail}` : ""}`,
        };
      }
    },
  };
}

/** The rule components a judge may fall back to, by type (entries of the reward component registry). */
const FALLBACK_RULES = {
  exact_match: exactMatchComponent,
  f1: f1Component,
  format: formatComponent,
} as const;

function createFallbackRule(entry: z.infer<typeof fallbackRuleSchema>): RewardComponent {
  const rule = FALLBACK_RULES[entry.type] as { create(config: typeof entry): RewardComponent };
  return rule.create(entry);
}

/** One judge call under the deadline; every failure is a RewardScoringError. */
function judgeScorer(name: string, config: JudgeConfig) {
  const rubric: JudgeRubricOptions = {
    rubric: config.rubric,
    rubric_id: config.rubric_id,
    judged: config.judged,
  };
  return async ({ task, answer, sampledTexts }: RewardInput, ctx: RewardContext): Promise<ComponentScore> => {
    const judge = ctx.judge;
    if (judge === undefined) {
      throw new RewardConfigError(name, "NO_JUDGE", "the reward config has a judge component but no judge");
    }
    if (answer === null) return { value: 0, detail: "no answer" };
    const deadline = AbortSignal.timeout(config.deadline_ms);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
    let verdict: JudgeVerdict;
    try {
      const request = { task, answer, sampledTexts, signal, ...rubric };
      // Abandoned at the deadline or the caller's abort, whether or not the judge honours the signal.
      verdict = await raceSignal(judge.score(request), signal);
    } catch (err) {
      if (signal.aborted) {
        throw deadline.aborted
          ? new RewardInfraError(name, "JUDGE_TIMEOUT", `no verdict within ${config.deadline_ms} ms`)
          : new RewardInfraError(name, "CANCELLED", "scoring was cancelled");
      }
      if (isRewardScoringError(err)) {
        const Kind = err.kind === "config" ? RewardConfigError : RewardInfraError;
        throw new Kind(name, err.code, err.message, { cause: err });
      }
      const message = err instanceof Error ? err.message : String(err);
      throw new RewardInfraError(name, "JUDGE_ERROR", `judge failed: ${oneLine(message)}`, { cause: err });
    }
    const score = verdict?.score;
    if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
      throw new RewardInfraError(name, "JUDGE_BAD_RESPONSE", `judge score ${String(score)} is not in [0, 1]`);
    }
    return verdict.explanation ? { value: score, detail: oneLine(verdict.explanation) } : { value: score };
  };
}

export const judgeComponent = defineRewardComponent({
  schema: judgeSchema,
  range: [0, 1],
  create: createJudge,
});
