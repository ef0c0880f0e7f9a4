// @rlfactory/rewards — the rule language of rewards: one grader-spec language (grader-spec.ts) and
// the text metrics behind it, graded by gradeRule(grader, { response, references }). The judge's rule
// mode and the rollout's rule components (exact_match, f1, string_check, text_similarity, multi) both
// call it, so a rule gives the same score in both.
export { type BleuOptions, type BleuResult, bleu, modifiedPrecision } from "./bleu.ts";
export { compileFormula, type Formula } from "./formula.ts";
export {
  checkGraderSpec,
  gradeRule,
  needsReference,
  parseGraderSpec,
  type RuleGrade,
  type RuleInput,
} from "./grade-rule.ts";
export {
  type ExactMatchSpec,
  type F1Spec,
  GRADER_TYPES,
  type GraderSpec,
  type GraderType,
  graderSchemas,
  graderSpecSchema,
  MAX_GRADER_DEPTH,
  type MultiSpec,
  SIMILARITY_METRICS,
  type SimilarityMetric,
  STRING_CHECK_OPERATIONS,
  type StringCheckOperation,
  type StringCheckSpec,
  type TextSimilaritySpec,
} from "./grader-spec.ts";
export { exactMatch, f1Against, f1Score, normalizeAnswer } from "./qa-match.ts";
export { isRuleGraderError, RuleGraderError, type RuleGraderErrorCode } from "./rule-grader-error.ts";
export { stringCheck } from "./string-check.ts";
export { fuzzySimilarity, MAX_SIMILARITY_CHARS, textSimilarity, wordTokens } from "./text-similarity.ts";
