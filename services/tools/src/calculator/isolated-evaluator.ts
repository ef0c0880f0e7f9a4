// Runs expression evaluation in a pool of worker threads, each with a heap cap, and every expression
// with its own deadline, so that no expression can exhaust the tool server's memory, block its event
// loop or hold up other callers' expressions. Expressions wait for a free worker in a fair queue
// (../fair-scheduling/fair-queue.ts): callers take turns, and no caller holds more than `perCaller`
// workers at once (default half of them), so one caller's backlog of expensive expressions leaves
// workers for another caller's `2+2`. An expression past its deadline (or out of memory, or cancelled by its caller) has its worker
// terminated, and a fresh worker takes that slot.
//
// A worker that dies before it is ready (while loading mathjs) is the server's problem, never the
// expression's: the expression waits for another fresh worker (START_ATTEMPTS in all), and only an
// out-of-memory while the expression itself runs is answered as the expression needing too much
// memory. The heap cap is set well above what a loaded worker holds (about 40 MiB with every number
// mode built; stats().heapUsedMb shows it): V8 gives up on a heap that stays above 80% of its cap
// after repeated full collections, so a cap close to the loaded size fails ordinary expressions.
//
// Not piscina: it hands tasks to its first workers before they have loaded, fails a task on a worker
// that dies while loading with that worker's error (an out-of-memory while loading mathjs would read
// as the expression's), stops replacing workers for good after one such failure, and has no deadline
// counted from when a worker takes the expression.

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { SHARED_CALLER } from "../fair-scheduling/caller-identity.ts";
import { FairQueue } from "../fair-scheduling/fair-queue.ts";
import type { NumberMode } from "./evaluation-messages.ts";
import { EvaluationReply, WorkerReady } from "./evaluation-messages.ts";

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
export interface EvaluatorStats {
  workers: number;
  busy: number;
  queued: number;
  /** Workers started since the pool was made, replacements included. */
  workersStarted: number;
  /** Workers that died before they were ready (each retried on a fresh worker). */
  startFailures: number;
  /** The largest JS heap in use (MiB) a live worker last reported, or 0 before any is ready. */
  heapUsedMb: number;
}

interface EvaluationWorker {
  worker: Worker;
  /** Resolves once the worker has loaded mathjs; rejects if it dies first. */
  ready: Promise<void>;
  loaded: boolean;
  /** The heap in use the worker last reported (when ready, then with each reply). */
  heapUsedMb: number;
}

interface Job {
  caller: string;
  expression: string;
  mode: NumberMode;
  signal: AbortSignal | undefined;
  resolve(outcome: EvaluationOutcome): void;
}

interface Slot {
  current: EvaluationWorker | undefined;
  busy: boolean;
}

const WORKER_URL = new URL("./evaluator-worker.ts", import.meta.url);
const FAILED = "The expression could not be evaluated";
const OUT_OF_MEMORY = "The expression needs too much memory";
const NO_WORKER = "The calculator could not start an evaluation worker; try again later";
/** Fresh workers an expression tries before it is answered NO_WORKER. */
export const START_ATTEMPTS = 3;
const CANCELLED = "The evaluation was cancelled";

export class IsolatedEvaluator {
  readonly timeoutMs: number;
  readonly workers: number;
  readonly perCaller: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[];
  private readonly queue: FairQueue<Job>;
  private nextId = 0;
  private closed = false;
  private workersStarted = 0;
  private startFailures = 0;
  /** The last worker to finish starting failed to: no spare is started until one starts again. */
  private lastStartFailed = false;

  constructor(opts: IsolatedEvaluatorOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? EVALUATOR_DEFAULTS.timeoutMs;
    this.maxHeapMb = opts.maxHeapMb ?? EVALUATOR_DEFAULTS.maxHeapMb;
    this.workers = opts.workers ?? EVALUATOR_DEFAULTS.workers;
    if (!Number.isInteger(this.workers) || this.workers < 1) {
      throw new Error(`workers must be a positive integer, got ${this.workers}`);
    }
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0) {
      throw new Error(`timeoutMs must be a positive number, got ${this.timeoutMs}`);
    }
    this.perCaller = Math.min(this.workers, Math.max(1, opts.perCaller ?? Math.floor(this.workers / 2)));
    this.queue = new FairQueue(this.perCaller);
    this.slots = Array.from({ length: this.workers }, () => ({ current: undefined, busy: false }));
  }

  /**
   * Starts `count` workers (default: all) ahead of the first evaluations; resolves when they are
   * ready. Loading mathjs takes a moment of CPU, so the first worker loads alone and the others follow
   * once it is ready. Workers not started here start when an expression finds no loaded one free.
   */
  async warmUp(count: number = this.workers): Promise<void> {
    const [first, ...rest] = this.slots.slice(0, count);
    if (first === undefined) return;
    first.current ??= this.spawn(first);
    await first.current.ready.catch(() => {});
    await Promise.all(
      rest.map((slot) => {
        slot.current ??= this.spawn(slot);
        return slot.current.ready.catch(() => {});
      }),
    );
  }

  stats(): EvaluatorStats {
    return {
      workers: this.workers,
      busy: this.slots.filter((slot) => slot.busy).length,
      queued: this.queue.size,
      workersStarted: this.workersStarted,
      startFailures: this.startFailures,
      heapUsedMb: Math.max(0, ...this.slots.map((slot) => slot.current?.heapUsedMb ?? 0)),
    };
  }

  /** Evaluates on a worker; `caller` (see caller-identity.ts) is who asked, for the fair queue. */
  evaluate(
    expression: string,
    signal?: AbortSignal,
    mode: NumberMode = "number",
    caller: string = SHARED_CALLER,
  ): Promise<EvaluationOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: FAILED });
    if (signal?.aborted === true) return Promise.resolve({ ok: false, error: CANCELLED });
    return new Promise((resolve) => {
      const job: Job = { caller, expression, mode, signal, resolve };
      this.queue.push(caller, job);
      // A caller that gives up while queued leaves the queue at once.
      signal?.addEventListener(
        "abort",
        () => {
          if (this.queue.remove(caller, job)) resolve({ ok: false, error: CANCELLED });
        },
        { once: true },
      );
      this.dispatch();
    });
  }

  /** Starts queued jobs (in the fair queue's order) on free slots, loaded workers first. */
  private dispatch(): void {
    for (;;) {
      const free =
        this.slots.find((slot) => !slot.busy && slot.current?.loaded === true) ??
        this.slots.find((slot) => !slot.busy);
      if (free === undefined) return;
      const next = this.queue.take();
      if (next === undefined) break;
      void this.runOn(free, next.job);
    }
    this.keepSpareWarm();
  }

  /**
   * Keeps one free slot with a worker loaded or loading while any is free: the fair queue leaves
   * slots free while a busy caller is at its limit, and another caller's expression that then lands on
   * a slot without a worker would wait for mathjs to load beside the busy ones.
   */
  private keepSpareWarm(): void {
    if (this.closed || this.lastStartFailed) return;
    const free = this.slots.filter((slot) => !slot.busy);
    if (free.length === 0 || free.some((slot) => slot.current !== undefined)) return;
    const spare = free[0]!;
    spare.current = this.spawn(spare);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (let next = this.queue.take(); next !== undefined; next = this.queue.take()) {
      next.job.resolve({ ok: false, error: FAILED });
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        const current = slot.current;
        slot.current = undefined;
        await current?.worker.terminate();
      }),
    );
  }

  private spawn(slot: Slot): EvaluationWorker {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb, maxYoungGenerationSizeMb: 16 },
      // Never onto our stdout: that is the stdio MCP transport.
      stdout: true,
    });
    // Copied chunk by chunk rather than piped: a pipe per worker would add listeners on stderr.
    worker.stdout.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    // An idle worker must not keep the process alive (a stdio server exits when stdin closes).
    worker.unref();
    this.workersStarted++;
    const spawned: EvaluationWorker = {
      worker,
      loaded: false,
      heapUsedMb: 0,
      ready: new Promise<void>((resolve, reject) => {
        const onMessage = (raw: unknown) => {
          const ready = WorkerReady.safeParse(raw);
          if (!ready.success) return;
          worker.off("message", onMessage);
          spawned.heapUsedMb = ready.data.heapUsedMb;
          resolve();
        };
        worker.on("message", onMessage);
        worker.once("exit", () => reject(new Error("evaluation worker exited")));
        worker.once("error", reject);
      }),
    };
    spawned.ready.then(
      () => {
        spawned.loaded = true;
      },
      () => {},
    );
    worker.once("exit", () => {
      if (slot.current === spawned) slot.current = undefined;
    });
    return spawned;
  }

  /** Terminates a worker that ran over, ran out of memory or was cancelled; a fresh one takes its slot. */
  private replace(slot: Slot, spawned: EvaluationWorker): void {
    if (slot.current === spawned) slot.current = this.closed ? undefined : this.spawn(slot);
    void spawned.worker.terminate();
  }

  /** Runs `job` (taken from the fair queue) on `slot`, then frees the slot for the next one. */
  private async runOn(slot: Slot, job: Job): Promise<void> {
    slot.busy = true;
    try {
      const outcome =
        job.signal?.aborted === true ? { ok: false as const, error: CANCELLED } : await this.run(slot, job);
      job.resolve(outcome);
    } finally {
      this.queue.finished(job.caller);
      slot.busy = false;
      if (!this.closed) this.dispatch();
    }
  }

  /**
   * The slot's worker once it is ready, starting fresh ones while they die before they are ready
   * (START_ATTEMPTS in all); undefined if none became ready.
   */
  private async readyWorker(slot: Slot): Promise<EvaluationWorker | undefined> {
    for (let attempt = 1; attempt <= START_ATTEMPTS && !this.closed; attempt++) {
      slot.current ??= this.spawn(slot);
      const spawned = slot.current;
      try {
        await spawned.ready;
        this.lastStartFailed = false;
        return spawned;
      } catch {
        this.startFailures++;
        this.lastStartFailed = true;
        this.replace(slot, spawned);
      }
    }
    return undefined;
  }

  private async run(slot: Slot, job: Job): Promise<EvaluationOutcome> {
    const spawned = await this.readyWorker(slot);
    if (spawned === undefined) return { ok: false, error: this.closed ? FAILED : NO_WORKER };
    const { worker } = spawned;
    const { signal } = job;
    if (signal?.aborted === true) return { ok: false, error: CANCELLED };
    const id = this.nextId++;
    return new Promise((resolve) => {
      const finish = (outcome: EvaluationOutcome, replaceWorker: boolean) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
        if (replaceWorker) this.replace(slot, spawned);
        resolve(outcome);
      };
      const onMessage = (raw: unknown) => {
        const reply = EvaluationReply.safeParse(raw);
        if (!reply.success || reply.data.id !== id) return;
        spawned.heapUsedMb = reply.data.heapUsedMb;
        finish(
          reply.data.ok ? { ok: true, result: reply.data.result } : { ok: false, error: reply.data.error },
          false,
        );
      };
      const onError = (error: Error & { code?: string }) => {
        const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
        finish({ ok: false, error: outOfMemory ? OUT_OF_MEMORY : FAILED }, true);
      };
      const onExit = () => finish({ ok: false, error: FAILED }, true);
      // The caller went away: stop the work rather than let it hold a worker to its deadline.
      const onAbort = () => finish({ ok: false, error: CANCELLED }, true);
      const timer = setTimeout(
        () =>
          finish(
            { ok: false, error: `The expression exceeded the time limit of ${this.timeoutMs} ms` },
            true,
          ),
        this.timeoutMs,
      );
      worker.on("message", onMessage);
      worker.once("error", onError);
      worker.once("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage({ id, expression: job.expression, mode: job.mode });
    });
  }
}
