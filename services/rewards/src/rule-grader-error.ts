// Why a rule could not be graded: the grader spec is invalid (`INVALID_GRADER`: bad shape, a formula
// that does not parse or evaluates to a non-finite number, a text over the similarity limit), or a
// grader needs a reference and neither the grader nor the caller gave one (`NO_REFERENCE`). Never a
// silent 0. Each caller turns it into its own error: the judge's INVALID_REQUEST, the rollout's
// reward_error (NO_GOLD_ANSWERS for a missing reference).

export type RuleGraderErrorCode = "INVALID_GRADER" | "NO_REFERENCE";

export class RuleGraderError extends Error {
  readonly code: RuleGraderErrorCode;
  constructor(code: RuleGraderErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RuleGraderError";
    this.code = code;
  }
}

export const isRuleGraderError = (e: unknown): e is RuleGraderError => e instanceof RuleGraderError;
