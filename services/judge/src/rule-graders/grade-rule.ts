// The judge's rule mode: a `mode: "rule"` request graded by the shared rule language of
// @rlfactory/rewards (the same gradeRule the rollout's rule components call). What is the judge's
// own here is the boundary: the request's one `reference` becomes the grader's references, and a
// RuleGraderError (bad spec, missing reference) becomes an INVALID_REQUEST JudgeError.
import {
  type GraderSpec,
  gradeRule as gradeSharedRule,
  isRuleGraderError,
  parseGraderSpec as parseSharedGraderSpec,
  type RuleGrade,
} from "@rlfactory/rewards";
import { JudgeError } from "../judge-types.ts";

export type { RuleGrade };

export interface RuleInput {
  response: string;
  reference?: string | undefined;
  task?: string | undefined;
}

function asJudgeError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isRuleGraderError(error)) throw new JudgeError("INVALID_REQUEST", error.message, { cause: error });
    throw error;
  }
}

/** Parses a grader spec; throws INVALID_REQUEST naming what is wrong. */
export function parseGraderSpec(grader: unknown): GraderSpec {
  return asJudgeError(() => parseSharedGraderSpec(grader));
}

export function gradeRule(grader: unknown, input: RuleInput): RuleGrade {
  const references = input.reference === undefined ? [] : [input.reference];
  return asJudgeError(() => gradeSharedRule(grader, { response: input.response, references }));
}
