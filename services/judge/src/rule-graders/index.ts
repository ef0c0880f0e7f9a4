// Rule graders: deterministic rewards in the judge's request language (`mode: "rule"`). The language
// and its metrics are @rlfactory/rewards' (shared with the rollout's rule components); grade-rule.ts
// is the judge's boundary to it. Entry point: gradeRule(grader, { response, reference, task }).
export type { GraderSpec } from "@rlfactory/rewards";
export { gradeRule, parseGraderSpec, type RuleGrade, type RuleInput } from "./grade-rule.ts";
