// `judge`: the score a judge (`ctx.judge`, e.g. HttpJudge) gives the answer, in [0, 1].
//
// Parameters: `deadline_ms` (default 60000): the judge call is abandoned after it, whether or not the
// judge honours its AbortSignal. A missing answer scores 0 without asking. Everything else that goes
// wrong is an error, never a 0: no judge in the context (RewardConfigError NO_JUDGE), the deadline
// (RewardInfraError JUDGE_TIMEOUT), the caller's abort (CANCELLED), a judge failure (its own
// RewardInfraError code, else JUDGE_ERROR), a score that is not a number in [0, 1] (JUDGE_BAD_RESPONSE).
import { z } from "zod";
import { isRewardScoringError, oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import {
  type ComponentScore,
  componentBaseShape,
  componentName,
  type JudgeVerdict,
  type RewardComponent,
} from "./types.ts";

export { HttpJudge, type HttpJudgeOptions } from "./http-judge.ts";
export type { Judge, JudgeRequest, JudgeVerdict } from "./types.ts";

export const judgeSchema = z.strictObject({
  type: z.literal("judge"),
  ...componentBaseShape,
  deadline_ms: z.number().int().positive().default(60_000),
});
export type JudgeConfig = z.infer<typeof judgeSchema>;

export function createJudge(config: JudgeConfig): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    async score({ task, answer, sampledTexts }, ctx): Promise<ComponentScore> {
      const judge = ctx.judge;
      if (judge === undefined) {
        throw new RewardConfigError(name, "NO_JUDGE", "the reward config has a judge component but no judge");
      }
      if (answer === null) return { value: 0, detail: "no answer" };
      const deadline = AbortSignal.timeout(config.deadline_ms);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
      let onAbort = () => {};
      const abandoned = new Promise<never>((_, reject) => {
        onAbort = () =>
          reject(
            deadline.aborted
              ? new RewardInfraError(name, "JUDGE_TIMEOUT", `no verdict within ${config.deadline_ms} ms`)
              : new RewardInfraError(name, "CANCELLED", "scoring was cancelled"),
          );
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
      let verdict: JudgeVerdict;
      try {
        verdict = await Promise.race([judge.score({ task, answer, sampledTexts, signal }), abandoned]);
      } catch (err) {
        if (isRewardScoringError(err)) {
          const Kind = err.kind === "config" ? RewardConfigError : RewardInfraError;
          throw new Kind(name, err.code, err.message, { cause: err });
        }
        const message = err instanceof Error ? err.message : String(err);
        throw new RewardInfraError(name, "JUDGE_ERROR", `judge failed: ${oneLine(message)}`, { cause: err });
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
      const score = verdict?.score;
      if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
        throw new RewardInfraError(
          name,
          "JUDGE_BAD_RESPONSE",
          `judge score ${String(score)} is not in [0, 1]`,
        );
      }
      return verdict.explanation ? { value: score, detail: oneLine(verdict.explanation) } : { value: score };
    },
  };
}
