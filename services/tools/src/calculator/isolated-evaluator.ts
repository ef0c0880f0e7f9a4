// Runs expression evaluation in a pool of worker threads (@rlfactory/kit/worker-pool, on piscina),
// each with a heap cap, and every expression with its own deadline, so that no expression can exhaust
// the tool server's memory, block its event loop or hold up other callers' expressions. Expressions
// wait for a free worker in a fair queue: callers take turns, and no caller holds more than
// `perCaller` workers at once (default half of them), so one caller's backlog of expensive expressions
// leaves workers for another caller's `2+2`; a spare worker is kept loaded beside the busy ones. An
// expression past its deadline (or out of memory, or cancelled by its caller) has its worker
// terminated, and a fresh worker takes that slot.
//
// A worker that dies before it is loaded (while loading mathjs) is the server's problem, never the
// expression's: the expression waits for another fresh worker (START_ATTEMPTS in all), and only an
// out-of-memory while the expression itself runs is answered as the expression needing too much
// memory. The heap cap is set well above what a loaded worker holds (about 40 MiB with every number
// mode built; stats().heapUsedMb shows it): V8 gives up on a heap that stays above 80% of its cap
// after repeated full collections, so a cap close to the loaded size fails ordinary expressions.

import { availableParallelism } from "node:os";
import { WorkerPool, type WorkerPoolStats } from "@rlfactory/kit/worker-pool";
import { SHARED_CALLER } from "../fair-scheduling/caller-identity.ts";
import { EvaluationReply, type EvaluationRequest, type NumberMode } from "./evaluation-messages.ts";

/** The limits of the pool unless options say otherwise (docs/tools.md states them). */
export const EVALUATOR_DEFAULTS = {
  timeoutMs: 2_000,
  maxHeapMb: 256,
  workers: Math.max(1, Math.min(4, availableParallelism())),
} as const;

export interface IsolatedEvaluatorOptions {
  /** Deadline of one expression, from when a ready worker takes it; default 2 s. */
  timeoutMs?: number;
  /** Old-generation heap cap of each worker; default 256 MiB. */
  maxHeapMb?: number;
  /** Worker threads evaluating at once; default min(4, available cores). */
  workers?: number;
  /** Workers one caller may hold at once; default half of `workers` (at least 1). */
  perCaller?: number;
}

export type EvaluationOutcome = { ok: true; result: number | string } | { ok: false; error: string };

/** How busy the pool is: for tests and diagnostics. */
export interface EvaluatorStats extends WorkerPoolStats {
  /** The largest JS heap in use (MiB) a live worker last reported, or 0 before any is ready. */
  heapUsedMb: number;
}

const WORKER_URL = new URL("./evaluator-worker.ts", import.meta.url);
const FAILED = "The expression could not be evaluated";
const OUT_OF_MEMORY = "The expression needs too much memory";
const NO_WORKER = "The calculator could not start an evaluation worker; try again later";
/** Fresh workers an expression tries before it is answered NO_WORKER. */
export const START_ATTEMPTS = 3;
const CANCELLED = "The evaluation was cancelled";
/** What each fresh worker evaluates before it takes expressions (mathjs is loaded once it answers). */
const WARM_UP: EvaluationRequest = { expression: "1", mode: "number" };

export class IsolatedEvaluator {
  readonly timeoutMs: number;
  readonly workers: number;
  readonly perCaller: number;
  private readonly pool: WorkerPool<EvaluationRequest, unknown>;

  constructor(opts: IsolatedEvaluatorOptions = {}) {
    const workers = opts.workers ?? EVALUATOR_DEFAULTS.workers;
    this.pool = new WorkerPool({
      filename: WORKER_URL,
      workers,
      perCaller: opts.perCaller ?? Math.floor(workers / 2),
      timeoutMs: opts.timeoutMs ?? EVALUATOR_DEFAULTS.timeoutMs,
      resourceLimits: {
        maxOldGenerationSizeMb: opts.maxHeapMb ?? EVALUATOR_DEFAULTS.maxHeapMb,
        maxYoungGenerationSizeMb: 16,
      },
      warmUpTask: WARM_UP,
      startAttempts: START_ATTEMPTS,
      keepSpare: true,
    });
    this.workers = this.pool.workers;
    this.perCaller = this.pool.perCaller;
    this.timeoutMs = this.pool.timeoutMs!;
  }

  /**
   * Starts `count` workers (default: all) ahead of the first evaluations; resolves when they are
   * ready. Loading mathjs takes a moment of CPU, so the first worker loads alone and the others follow
   * once it is ready. Workers not started here start when an expression finds no loaded one free.
   */
  warmUp(count: number = this.workers): Promise<void> {
    return this.pool.warmUp(count);
  }

  stats(): EvaluatorStats {
    const heaps = this.pool
      .lastAnswers()
      .map((answer) => EvaluationReply.safeParse(answer).data?.heapUsedMb ?? 0);
    return { ...this.pool.stats(), heapUsedMb: Math.max(0, ...heaps) };
  }

  /** Evaluates on a worker; `caller` (see caller-identity.ts) is who asked, for the fair queue. */
  async evaluate(
    expression: string,
    signal?: AbortSignal,
    mode: NumberMode = "number",
    caller: string = SHARED_CALLER,
  ): Promise<EvaluationOutcome> {
    const outcome = await this.pool.run({ expression, mode }, { caller, ...(signal ? { signal } : {}) });
    switch (outcome.status) {
      case "done": {
        const reply = EvaluationReply.safeParse(outcome.value);
        if (!reply.success) return { ok: false, error: FAILED };
        return reply.data.ok
          ? { ok: true, result: reply.data.result }
          : { ok: false, error: reply.data.error };
      }
      case "timeout":
        return { ok: false, error: `The expression exceeded the time limit of ${this.timeoutMs} ms` };
      case "cancelled":
        return { ok: false, error: CANCELLED };
      case "failed":
        return {
          ok: false,
          error: outcome.error.code === "ERR_WORKER_OUT_OF_MEMORY" ? OUT_OF_MEMORY : FAILED,
        };
      case "no-worker":
        return { ok: false, error: NO_WORKER };
      case "closed":
        return { ok: false, error: FAILED };
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
