// The rule-grader pool: rule graders (ROUGE-L, Levenshtein, BLEU, multi) are CPU work, quadratic on
// long texts, so they run in worker threads (rule-grader-worker.ts) of the kit's worker pool
// (@rlfactory/kit/worker-pool, on piscina), never on the event loop that answers HTTP, gRPC and
// /healthz. `rule_graders.workers` threads grade at once; more requests wait in the pool's queue. Every
// grading carries the request's signal (its deadline and the caller's hang-up): when it aborts, a
// queued grading leaves the queue, and a running one has its worker thread stopped (and a fresh one
// started), so an abandoned grading costs no more CPU.
import { WorkerPool } from "@rlfactory/kit/worker-pool";
import { JudgeError } from "../judge-types.ts";
import type { RuleGrade, RuleInput } from "./grade-rule.ts";
import type { RuleGradeAnswer, RuleGradeTask } from "./rule-grader-worker.ts";

export interface RuleGraderPool {
  /** Grades in a worker; rejects with the signal's reason when it aborts first. */
  grade(grader: unknown, input: RuleInput, signal: AbortSignal): Promise<RuleGrade>;
  close(): Promise<void>;
}

const WORKER = new URL("./rule-grader-worker.ts", import.meta.url);
/** Run on each fresh worker before it grades: answered (as no grader) once the worker has loaded. */
const WARM_UP: RuleGradeTask = { grader: null, input: { response: "" } };

export function createRuleGraderPool(opts: { workers: number }): RuleGraderPool {
  // Threads start on the first rule request: a judge that only serves model modes starts none.
  const pool = new WorkerPool<RuleGradeTask, RuleGradeAnswer>({
    filename: WORKER,
    workers: opts.workers,
    warmUpTask: WARM_UP,
  });
  return {
    async grade(grader, input, signal) {
      if (signal.aborted) throw signal.reason;
      const outcome = await pool.run({ grader, input }, { signal });
      switch (outcome.status) {
        case "done":
          if (!outcome.value.ok) throw new JudgeError(outcome.value.code, outcome.value.message);
          return outcome.value.grade;
        case "cancelled":
          throw signal.reason;
        case "failed":
          throw new JudgeError("INTERNAL", `rule grader failed: ${outcome.error.message}`);
        default:
          throw new JudgeError("INTERNAL", `rule grader unavailable (${outcome.status})`);
      }
    },
    close: () => pool.close(),
  };
}
