// The rule-grader pool: rule graders (ROUGE-L, Levenshtein, BLEU, multi) are CPU work, quadratic on
// long texts, so they run in piscina worker threads (rule-grader-worker.ts), never on the event loop
// that answers HTTP, gRPC and /healthz. `rule_graders.workers` threads grade at once; more requests wait
// in the pool's queue. Every grading carries the request's signal (its deadline and the caller's
// hang-up): when it aborts, piscina drops the task from the queue, or stops the worker thread that is
// running it (and starts a fresh one), so an abandoned grading costs no more CPU.
import { Piscina } from "piscina";
import { JudgeError } from "../judge-types.ts";
import type { RuleGrade, RuleInput } from "./grade-rule.ts";
import type { RuleGradeAnswer, RuleGradeTask } from "./rule-grader-worker.ts";

export interface RuleGraderPool {
  /** Grades in a worker; rejects with the signal's reason when it aborts first. */
  grade(grader: unknown, input: RuleInput, signal: AbortSignal): Promise<RuleGrade>;
  close(): Promise<void>;
}

const WORKER = new URL("./rule-grader-worker.ts", import.meta.url).href;

export function createRuleGraderPool(opts: { workers: number }): RuleGraderPool {
  let pool: Piscina | undefined;
  // Started on the first rule request: a judge that only serves model modes starts no threads.
  const started = () => {
    pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: opts.workers,
      idleTimeout: 30_000,
    });
    return pool;
  };
  return {
    async grade(grader, input, signal) {
      if (signal.aborted) throw signal.reason;
      const task: RuleGradeTask = { grader, input };
      try {
        const answer = (await started().run(task, { signal })) as RuleGradeAnswer;
        if (!answer.ok) throw new JudgeError(answer.code, answer.message);
        return answer.grade;
      } catch (err) {
        // piscina rejects an aborted task with its own AbortError: answer with the signal's reason.
        if (signal.aborted) throw signal.reason;
        throw err;
      }
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
