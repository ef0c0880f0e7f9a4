// One rule grading in a worker thread of the rule-grader pool (rule-grader-pool.ts): the grader runs
// here, off the event loop that answers HTTP, gRPC and /healthz. It never throws: a JudgeError comes
// back as its code and message (errors do not keep their class across threads).
import { JudgeError, type JudgeErrorCode } from "../judge-types.ts";
import { gradeRule, type RuleGrade, type RuleInput } from "./grade-rule.ts";

export interface RuleGradeTask {
  grader: unknown;
  input: RuleInput;
}

export type RuleGradeAnswer =
  | { ok: true; grade: RuleGrade }
  | { ok: false; code: JudgeErrorCode; message: string };

export default function gradeInWorker(task: RuleGradeTask): RuleGradeAnswer {
  try {
    return { ok: true, grade: gradeRule(task.grader, task.input) };
  } catch (err) {
    if (err instanceof JudgeError) return { ok: false, code: err.code, message: err.message };
    return { ok: false, code: "INTERNAL", message: `rule grader failed: ${(err as Error)?.message ?? err}` };
  }
}
