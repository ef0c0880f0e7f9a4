// Rule graders: deterministic rewards in the judge's request language (`mode: "rule"`), mirroring
// OpenAI's grader schema. Entry point: gradeRule(grader, { response, reference, task }).
export { type BleuOptions, type BleuResult, bleu, modifiedPrecision } from "./bleu.ts";
export { compileFormula, type Formula } from "./formula.ts";
export { gradeRule, parseGraderSpec, type RuleGrade, type RuleInput } from "./grade-rule.ts";
export {
  type GraderSpec,
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
export { fuzzySimilarity, MAX_SIMILARITY_CHARS, textSimilarity, wordTokens } from "./text-similarity.ts";
