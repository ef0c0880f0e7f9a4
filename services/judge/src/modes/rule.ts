// Rule mode: a rule grader (string check, similarity, weighted formula) in the same request language
// as the model modes; no judge model involved, so it works without a backend.
import { gradeRule } from "../rule-graders/index.ts";
import type { ModeResult } from "./judge-calls.ts";

export interface RuleModeInput {
  grader: Record<string, unknown>;
  response: string;
  reference?: string | undefined;
  task?: string | undefined;
}

export function judgeRule(input: RuleModeInput): ModeResult & { detail: Record<string, unknown> } {
  const { score, detail } = gradeRule(input.grader, {
    response: input.response,
    reference: input.reference,
    task: input.task,
  });
  return { score, sample_scores: [score], notes: [], detail };
}
