// A fixed number of reusable worker threads, on piscina: tasks wait in a fair queue (fair-queue.ts:
// callers take turns, none holds more than `perCaller` workers), each runs with a deadline counted
// from when a loaded worker takes it, and a task past its deadline or cancelled by its caller has its
// worker stopped and a fresh one started in its place. Heap caps are the workers' resource limits.
//
// Each of the `workers` slots is a single-thread piscina pool, and this pool decides which slot runs
// what. piscina spawns, loads, messages and stops the threads; what it does not do, this does:
// - a deadline from when a loaded worker takes the task (piscina's only stop is an abort signal, and a
//   task it queues behind a loading worker would spend its deadline on the load);
// - a fresh worker is loaded (by running `warmUpTask` on it) before a task is handed to it, so a worker
//   that dies while loading is the pool's failure (`no-worker` after `startAttempts` fresh workers), never
//   the task's; piscina stops replacing workers for good after one such death, so its pool is replaced;
// - `keepSpare`: one free slot keeps a loaded (or loading) worker while any slot is free, so a caller
//   arriving while another holds its share is answered without waiting for a worker to load.
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import { FairQueue } from "./fair-queue.ts";

export interface WorkerPoolOptions<T> {
  /** The worker module: its default export takes one task and returns its answer (piscina's handler). */
  filename: URL;
  /** Worker threads running tasks at once. */
  workers: number;
  /** Workers one caller may hold at once; default all of them. */
  perCaller?: number;
  /** Deadline of one task, from when a loaded worker takes it; default none (the caller's signal only). */
  timeoutMs?: number;
  /** Heap limits of each worker thread. */
  resourceLimits?: ResourceLimits;
  /** A cheap task run on each fresh worker before it takes real ones: it is loaded once this answers. */
  warmUpTask: T;
  /** Fresh workers a task tries while they die before they are loaded; default 3. */
  startAttempts?: number;
  /** Keep one free worker loaded while any is free (see above); default false. */
  keepSpare?: boolean;
}

export type WorkerOutcome<R> =
  | { status: "done"; value: R }
  | { status: "timeout" }
  | { status: "cancelled" }
  /** The task threw, or its worker died (an out-of-memory has code ERR_WORKER_OUT_OF_MEMORY). */
  | { status: "failed"; error: Error & { code?: string } }
  /** `startAttempts` fresh workers died before they were loaded. */
  | { status: "no-worker" }
  | { status: "closed" };

export interface WorkerPoolStats {
  workers: number;
  /** Tasks holding a worker. */
  busy: number;
  /** Tasks waiting for one. */
  queued: number;
  /** Workers started since the pool was made, replacements included. */
  workersStarted: number;
  /** Live workers that are loaded (their warm-up answered). */
  loaded: number;
  /** Workers that died before they were loaded. */
  startFailures: number;
}

/** The caller of tasks that name none. */
export const SHARED_CALLER = "shared";
const DEFAULT_START_ATTEMPTS = 3;
/** How long `close` lets a loading worker finish loading before it stops it anyway. */
const LOADING_GRACE_MS = 30_000;

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.then(noop, noop), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
const noop = () => {};

interface Job<T, R> {
  task: T;
  caller: string;
  signal: AbortSignal | undefined;
  resolve(outcome: WorkerOutcome<R>): void;
}

interface Slot<R> {
  /** The slot's single-thread piscina pool; undefined until first used, or after it failed. */
  pool: Piscina | undefined;
  /** Resolves true once the slot's worker is loaded, false if it died first; undefined: no worker. */
  starting: Promise<boolean> | undefined;
  loaded: boolean;
  busy: boolean;
  /** The last answer of the slot's current worker (its warm-up's included). */
  lastAnswer: R | undefined;
}

export class WorkerPool<T, R> {
  readonly workers: number;
  readonly perCaller: number;
  readonly timeoutMs: number | undefined;
  private readonly options: WorkerPoolOptions<T>;
  private readonly startAttempts: number;
  private readonly slots: Slot<R>[];
  private readonly queue: FairQueue<Job<T, R>>;
  private closed = false;
  private workersStarted = 0;
  private startFailures = 0;
  /** The last worker to finish loading failed to: no spare is started until one loads again. */
  private lastStartFailed = false;

  constructor(options: WorkerPoolOptions<T>) {
    const { workers, timeoutMs } = options;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(`workers must be a positive integer, got ${workers}`);
    }
    if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
      throw new Error(`timeoutMs must be a positive number, got ${timeoutMs}`);
    }
    this.options = options;
    this.workers = workers;
    this.timeoutMs = timeoutMs;
    this.perCaller = Math.min(workers, Math.max(1, options.perCaller ?? workers));
    this.startAttempts = options.startAttempts ?? DEFAULT_START_ATTEMPTS;
    this.queue = new FairQueue(this.perCaller);
    this.slots = Array.from({ length: workers }, () => ({
      pool: undefined,
      starting: undefined,
      loaded: false,
      busy: false,
      lastAnswer: undefined,
    }));
  }

  /**
   * Loads `count` workers (default: all) ahead of the first tasks; resolves when they are loaded (or
   * failed to). The first loads alone and the others follow once it is loaded, so they do not share
   * the CPU with it. Workers not loaded here load when a task finds no loaded one free.
   */
  async warmUp(count: number = this.workers): Promise<void> {
    const [first, ...rest] = this.slots.slice(0, count);
    if (first === undefined) return;
    await this.load(first);
    await Promise.all(rest.map((slot) => this.load(slot)));
  }

  stats(): WorkerPoolStats {
    return {
      workers: this.workers,
      busy: this.slots.filter((slot) => slot.busy).length,
      queued: this.queue.size,
      workersStarted: this.workersStarted,
      loaded: this.slots.filter((slot) => slot.loaded).length,
      startFailures: this.startFailures,
    };
  }

  /** The last answer of each live worker (warm-ups included): for diagnostics such as heap use. */
  lastAnswers(): R[] {
    return this.slots.flatMap((slot) => (slot.lastAnswer === undefined ? [] : [slot.lastAnswer]));
  }

  /** Runs `task` on a worker; `caller` is who asked, for the fair queue. Never rejects. */
  run(task: T, opts: { caller?: string; signal?: AbortSignal } = {}): Promise<WorkerOutcome<R>> {
    const { caller = SHARED_CALLER, signal } = opts;
    if (this.closed) return Promise.resolve({ status: "closed" });
    if (signal?.aborted === true) return Promise.resolve({ status: "cancelled" });
    return new Promise((resolve) => {
      const job: Job<T, R> = { task, caller, signal, resolve };
      this.queue.push(caller, job);
      // A caller that gives up while queued leaves the queue at once.
      signal?.addEventListener(
        "abort",
        () => {
          if (this.queue.remove(caller, job)) resolve({ status: "cancelled" });
        },
        { once: true },
      );
      this.dispatch();
    });
  }

  /**
   * Answers queued tasks `closed` and stops every worker (running tasks are answered `closed`); a
   * worker still loading is stopped once it has loaded.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (let next = this.queue.take(); next !== undefined; next = this.queue.take()) {
      next.job.resolve({ status: "closed" });
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        // A worker stopped while it loads its modules can abort the whole process (Node calls back
        // into the stopped thread from a file read still in flight: nodejs/node#38418), so a loading
        // worker is let finish loading, for at most LOADING_GRACE_MS, before it is stopped.
        if (slot.starting !== undefined && !slot.loaded) await settledWithin(slot.starting, LOADING_GRACE_MS);
        const pool = slot.pool;
        this.reset(slot);
        await pool?.destroy();
      }),
    );
  }

  /** Starts queued tasks (in the fair queue's order) on free slots, loaded workers first. */
  private dispatch(): void {
    for (;;) {
      const free =
        this.slots.find((slot) => !slot.busy && slot.loaded) ?? this.slots.find((slot) => !slot.busy);
      if (free === undefined) return;
      const next = this.queue.take();
      if (next === undefined) break;
      void this.runOn(free, next.job);
    }
    this.keepSpareLoaded();
  }

  /**
   * Keeps one free slot with a worker loaded or loading while any is free: the fair queue leaves
   * slots free while a busy caller is at its limit, and another caller's task that then lands on a
   * slot without a worker would wait for it to load.
   */
  private keepSpareLoaded(): void {
    if (this.options.keepSpare !== true || this.closed || this.lastStartFailed) return;
    const free = this.slots.filter((slot) => !slot.busy);
    if (free.length === 0 || free.some((slot) => slot.starting !== undefined)) return;
    void this.load(free[0]!);
  }

  /** Runs `job` (taken from the fair queue) on `slot`, then frees the slot for the next one. */
  private async runOn(slot: Slot<R>, job: Job<T, R>): Promise<void> {
    slot.busy = true;
    try {
      job.resolve(job.signal?.aborted === true ? { status: "cancelled" } : await this.runIn(slot, job));
    } finally {
      this.queue.finished(job.caller);
      slot.busy = false;
      if (!this.closed) this.dispatch();
    }
  }

  /** The slot's worker loaded, starting fresh ones while they die first (`startAttempts` in all). */
  private async loaded(slot: Slot<R>): Promise<boolean> {
    for (let attempt = 1; attempt <= this.startAttempts && !this.closed; attempt++) {
      if (await this.load(slot)) return true;
    }
    return false;
  }

  /** Starts a worker in the slot (unless it has one) and resolves whether it loaded. */
  private load(slot: Slot<R>): Promise<boolean> {
    if (slot.starting !== undefined) return slot.starting;
    if (this.closed) return Promise.resolve(false);
    slot.pool ??= this.newPool(slot);
    const pool = slot.pool;
    this.workersStarted++;
    const starting = pool.run(this.options.warmUpTask).then(
      (answer: R) => {
        if (slot.pool === pool) {
          slot.loaded = true;
          slot.lastAnswer = answer;
        }
        this.lastStartFailed = false;
        return true;
      },
      () => {
        this.startFailures++;
        this.lastStartFailed = true;
        if (slot.starting === starting) this.discard(slot);
        return false;
      },
    );
    slot.starting = starting;
    return starting;
  }

  private newPool(slot: Slot<R>): Piscina {
    const pool = new Piscina({
      filename: this.options.filename.href,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      ...(this.options.resourceLimits !== undefined ? { resourceLimits: this.options.resourceLimits } : {}),
    });
    // A worker that died with no task (while loading, or idle): piscina starts no more workers in a
    // pool whose worker died while loading, so the slot gets a fresh pool; the warm-up queued on this
    // one is answered by its destruction.
    pool.on("error", () => {
      if (slot.pool === pool) this.discard(slot);
    });
    return pool;
  }

  /** Drops the slot's pool (its worker stopped, its queued warm-up answered with an error). */
  private discard(slot: Slot<R>): void {
    const pool = slot.pool;
    this.reset(slot);
    void pool?.destroy();
  }

  private reset(slot: Slot<R>): void {
    slot.pool = undefined;
    slot.starting = undefined;
    slot.loaded = false;
    slot.lastAnswer = undefined;
  }

  /** piscina has stopped the slot's worker (or it died): a fresh one is loaded in its place. */
  private replace(slot: Slot<R>): void {
    slot.starting = undefined;
    slot.loaded = false;
    slot.lastAnswer = undefined;
    if (!this.closed) void this.load(slot);
  }

  private async runIn(slot: Slot<R>, job: Job<T, R>): Promise<WorkerOutcome<R>> {
    if (!(await this.loaded(slot))) return { status: this.closed ? "closed" : "no-worker" };
    const pool = slot.pool;
    // Closed (or its worker died idle) since it loaded.
    if (pool === undefined) return { status: this.closed ? "closed" : "no-worker" };
    const { signal } = job;
    if (signal?.aborted === true) return { status: "cancelled" };
    const stop = new AbortController();
    let stoppedFor: "timeout" | "cancelled" | undefined;
    const onAbort = () => {
      stoppedFor ??= "cancelled";
      stop.abort();
    };
    const timer =
      this.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            stoppedFor ??= "timeout";
            stop.abort();
          }, this.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const value = (await pool.run(job.task, { signal: stop.signal })) as R;
      slot.lastAnswer = value;
      return { status: "done", value };
    } catch (error) {
      if (this.closed) return { status: "closed" };
      // piscina has stopped the worker of an aborted task that it had started, or the worker died:
      // a fresh one takes the slot. A task that threw (or was aborted before it started) left it alive.
      if (slot.pool === pool && pool.threads.length === 0) this.replace(slot);
      if (stoppedFor !== undefined) return { status: stoppedFor };
      return { status: "failed", error: error as Error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
