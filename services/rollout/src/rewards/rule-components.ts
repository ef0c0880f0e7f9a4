// The rule components: the shared rule language of @rlfactory/rewards (the judge's `mode: "rule"`
// grader language) as reward components. An entry is a grader spec plus `weight` (and `name`, which
// names the component in `reward_components`): `exact_match`, `f1`, `string_check`, `text_similarity`,
// `multi`. The response graded is the rollout's answer; the references are the task's gold answers,
// unless a grader sets its own `reference`. Same rule, same score as the judge's rule mode (the
// contract test in test/rewards checks it).
//
// A missing answer scores 0 (a model outcome). A grader that needs a reference on a task without gold
// answers is a config/data error (NO_GOLD_ANSWERS); a grader that rejects its input (a text over the
// similarity limit, a formula giving a non-finite number) is RULE_INVALID. A `multi` formula that does
// not compile, or nesting too deep, is refused when the config is parsed.
import { goldAnswers } from "@rlfactory/contracts";
import {
  checkGraderSpec,
  type GraderSpec,
  gradeRule,
  graderSchemas,
  isRuleGraderError,
  needsReference,
} from "@rlfactory/rewards";
import type { z } from "zod";
import { RewardConfigError } from "./errors.ts";
import {
  type ComponentScore,
  componentBaseShape,
  componentName,
  defineRewardComponent,
  type RewardComponent,
} from "./types.ts";

/** A rule component entry: a grader spec with the component keys. */
type RuleEntry = GraderSpec & { weight: number; name?: string | undefined };

export function createRuleComponent(entry: RuleEntry): RewardComponent {
  const name = componentName(entry);
  const { weight, ...spec } = entry;
  const grader = spec as GraderSpec;
  const withReference = needsReference(grader);
  return {
    name,
    weight,
    score: ({ task, answer }): ComponentScore => {
      const golds = goldAnswers(task);
      if (withReference && golds.length === 0) {
        throw new RewardConfigError(
          name,
          "NO_GOLD_ANSWERS",
          `task ${task.id} has no gold answers (ground_truth: a string, a list, or {target}) and ` +
            `the ${grader.type} grader has no reference of its own`,
        );
      }
      if (answer === null) return { value: 0, detail: "no answer" };
      try {
        return { value: gradeRule(grader, { response: answer, references: golds }).score };
      } catch (error) {
        if (!isRuleGraderError(error)) throw error;
        const code = error.code === "NO_REFERENCE" ? "NO_GOLD_ANSWERS" : "RULE_INVALID";
        throw new RewardConfigError(name, code, error.message, { cause: error });
      }
    },
  };
}

/** Formulas and nesting of a multi grader, checked once when the config is parsed. */
function checkMulti(entry: GraderSpec, ctx: z.RefinementCtx): void {
  try {
    checkGraderSpec(entry);
  } catch (error) {
    if (!isRuleGraderError(error)) throw error;
    ctx.addIssue({ code: "custom", message: error.message });
  }
}

const ruleComponent = <S extends z.ZodType<{ type: string }>>(schema: S) =>
  defineRewardComponent({ schema, range: [0, 1], create: (entry) => createRuleComponent(entry as never) });

export const exactMatchSchema = graderSchemas.exact_match.extend(componentBaseShape);
export const f1Schema = graderSchemas.f1.extend(componentBaseShape);
export const stringCheckSchema = graderSchemas.string_check.extend(componentBaseShape);
export const textSimilaritySchema = graderSchemas.text_similarity.extend(componentBaseShape);
export const multiSchema = graderSchemas.multi.extend(componentBaseShape).superRefine((entry, ctx) => {
  const { weight: _, ...spec } = entry;
  checkMulti(spec as GraderSpec, ctx);
});

export const exactMatchComponent = ruleComponent(exactMatchSchema);
export const f1Component = ruleComponent(f1Schema);
export const stringCheckComponent = ruleComponent(stringCheckSchema);
export const textSimilarityComponent = ruleComponent(textSimilaritySchema);
export const multiComponent = ruleComponent(multiSchema);
