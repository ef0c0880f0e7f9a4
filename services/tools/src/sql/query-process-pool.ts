// A small pool of query processes (query-process.ts, forked with IPC). Processes, not the kit's
// worker-thread pool (@rlfactory/kit/worker-pool): stopping a thread cannot interrupt a synchronous
// SQLite call, and SQLite's memory is outside a thread's heap cap; only SIGKILL stops it for sure.
// Each runs one job at a time; further jobs wait in the kit's fair queue (round-robin across callers, at most
// `perCaller` processes per caller), so one caller's runaway queries leave processes for others.
// A job that runs past its time limit, or whose caller cancels it (the caller's deadline), has its
// process killed (SIGKILL: the only sure way to stop a synchronous SQLite call), logged as "query
// process stopped", and replaced. Jobs start only on loaded processes, and all `size` processes are
// kept loaded, so a caller arriving while others keep processes busy is answered at once rather
// than after a process loads.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FairQueue } from "@rlfactory/kit/fair-queue";
import { type Logger, logger } from "@rlfactory/toolkit";
import { withoutHostPaths } from "./host-paths.ts";
import { type JobPhase, PhaseNotice, ProcessReady, QueryReply, type QueryRequest } from "./query-messages.ts";

export interface QueryProcessPoolOptions {
  /** Processes running jobs at once; default 4. */
  size?: number;
  /** Jobs of one caller running at once; default half the processes (at least 1). */
  perCaller?: number;
  /** V8 old-generation heap cap of each process; default 256 MiB. */
  maxHeapMb?: number;
  /** Where "query process stopped" lines go; default the toolkit's logger. */
  logger?: Logger;
}

export interface JobOptions {
  /** Time limit of the job, or of each step of a multi-step job (see PhaseNotice). */
  timeoutMs: number;
  /** Who asked (see caller-identity.ts): jobs are scheduled fairly across callers. */
  caller: string;
  /** The caller's cancellation or deadline: a waiting job is dropped, a running one's process killed. */
  signal?: AbortSignal;
}

export type JobOutcome =
  | { status: "done"; reply: QueryReply }
  /** `phase` and `goldRows`: the step a multi-step job was in, and what it had reported. */
  | ({ status: "timeout" } & JobProgress)
  | { status: "cancelled" }
  | ({ status: "crashed"; message: string } & JobProgress);

/** How far a multi-step job (`verify`) had got: its step, and the gold rows once counted. */
export interface JobProgress {
  phase?: JobPhase;
  goldRows?: number;
}

/** Why a process was killed in the middle of a job. */
export type StopReason = "timeout" | "cancelled";

interface Slot {
  child: ChildProcess;
  /** Whether the process has loaded SQLite and takes jobs. */
  loaded: boolean;
  busy: boolean;
}

interface Pending {
  request: QueryRequest;
  options: JobOptions;
  resolve: (outcome: JobOutcome) => void;
  onQueuedAbort: () => void;
}

/** Processes loading at once. */
const MAX_LOADING = 1;

const PROCESS_PATH = fileURLToPath(new URL("./query-process.ts", import.meta.url));

/** Every running query process of this server, killed when it exits (one may be busy in SQLite). */
const running = new Set<ChildProcess>();
let killOnExit = false;

function track(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (killOnExit) return;
  killOnExit = true;
  process.once("exit", () => {
    for (const c of running) c.kill("SIGKILL");
  });
}

export class QueryProcessPool {
  readonly size: number;
  readonly perCaller: number;
  private readonly maxHeapMb: number;
  private readonly log: Logger;
  private readonly slots: Slot[] = [];
  private readonly queue: FairQueue<Pending>;
  private nextId = 0;
  /** Whether the last process to finish loading failed (then none is loaded ahead of jobs). */
  private loadFailing = false;

  constructor(opts: QueryProcessPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? 4);
    this.perCaller = Math.min(this.size, Math.max(1, opts.perCaller ?? Math.floor(this.size / 2)));
    this.maxHeapMb = opts.maxHeapMb ?? 256;
    this.log = (opts.logger ?? logger).child({ component: "sql-query-pool" });
    this.queue = new FairQueue(this.perCaller);
  }

  /** Starts loading the processes ahead of the first job (one at a time, in the background). */
  warmUp(): void {
    this.pump();
  }

  run(request: QueryRequest, options: JobOptions): Promise<JobOutcome> {
    const { signal, caller } = options;
    if (signal?.aborted === true) return Promise.resolve({ status: "cancelled" });
    return new Promise((resolve) => {
      const pending: Pending = {
        request,
        options,
        resolve,
        onQueuedAbort: () => {
          if (this.queue.remove(caller, pending)) resolve({ status: "cancelled" });
        },
      };
      signal?.addEventListener("abort", pending.onQueuedAbort, { once: true });
      this.queue.push(caller, pending);
      this.pump();
    });
  }

  /** Kills all processes (queued jobs stay queued and start new ones if run again). */
  close(): void {
    for (const slot of this.slots.splice(0)) slot.child.kill("SIGKILL");
  }

  /**
   * Starts waiting jobs on loaded idle processes (in the fair queue's order), then loads the next
   * process if the pool is not full. A job is never bound to a process still loading: it takes
   * whichever process is ready first, and a job cancelled meanwhile just leaves the queue.
   */
  private pump(): void {
    for (;;) {
      const slot = this.slots.find((s) => s.loaded && !s.busy);
      if (slot === undefined) break;
      const next = this.queue.take();
      if (next === undefined) break;
      const pending = next.job;
      pending.options.signal?.removeEventListener("abort", pending.onQueuedAbort);
      slot.busy = true;
      this.start(slot, pending);
    }
    // Every process is loaded ahead of the jobs (and a killed one replaced), one at a time: several
    // loading at once share the CPU and all become ready late. So a caller arriving while others
    // keep processes busy, or just after a deadline killed a burst of jobs, finds one ready or waits
    // for one load at most. After a failed load, processes are loaded only for waiting jobs (each
    // failure answers one), so a broken engine is not restarted in a loop.
    let loading = this.slots.filter((s) => !s.loaded).length;
    const idle = this.slots.filter((s) => s.loaded && !s.busy).length;
    const wanted = this.loadFailing ? this.queue.startable() - idle : this.size;
    while (loading < Math.min(wanted, MAX_LOADING) && this.slots.length < this.size) {
      this.slots.push(this.spawn());
      loading++;
    }
  }

  private spawn(): Slot {
    const child = fork(PROCESS_PATH, [], {
      execArgv: [`--max-old-space-size=${this.maxHeapMb}`],
      // Never onto our stdout: that is the stdio MCP transport.
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    });
    // An idle process must not keep the server alive (a stdio server exits when stdin closes).
    child.unref();
    child.channel?.unref();
    track(child);
    const slot: Slot = { child, loaded: false, busy: false };
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (raw: unknown) => {
        const message = ProcessReady.safeParse(raw);
        if (!message.success) return;
        child.off("message", onMessage);
        if (message.data.ready) resolve();
        else reject(new Error(message.data.error));
      };
      child.on("message", onMessage);
      child.once("error", reject);
      child.once("exit", () => reject(new Error("the query process exited")));
    });
    ready.then(
      () => {
        slot.loaded = true;
        this.loadFailing = false;
        this.log.debug({ worker_pid: child.pid }, "query process loaded");
        this.pump();
      },
      (error: Error) => this.loadFailed(slot, error),
    );
    child.once("exit", () => this.remove(slot));
    child.on("error", () => {});
    return slot;
  }

  /** A process could not load SQLite: the first job that could start is answered with why. */
  private loadFailed(slot: Slot, error: Error): void {
    this.discard(slot);
    this.loadFailing = true;
    const next = this.queue.take();
    if (next !== undefined) {
      next.job.options.signal?.removeEventListener("abort", next.job.onQueuedAbort);
      this.queue.finished(next.caller);
      next.job.resolve({
        status: "crashed",
        message: `the SQL engine could not start: ${withoutHostPaths(error.message)}`,
      });
    }
    this.pump();
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
  }

  private discard(slot: Slot): void {
    this.remove(slot);
    slot.child.kill("SIGKILL");
  }

  private start(slot: Slot, pending: Pending): void {
    const { request, options } = pending;
    const { caller, signal, timeoutMs } = options;
    const settle = (outcome: JobOutcome) => {
      this.queue.finished(caller);
      pending.resolve(outcome);
      this.pump();
    };
    const { child } = slot;
    const id = this.nextId++;
    let phase: JobPhase | undefined;
    let goldRows: number | undefined;
    const finish = (outcome: JobOutcome, stop?: StopReason) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      signal?.removeEventListener("abort", onAbort);
      if (stop !== undefined) {
        this.log.info(
          { worker_pid: child.pid, reason: stop, caller, op: request.op, ...(phase ? { phase } : {}) },
          "query process stopped",
        );
        this.discard(slot);
      } else slot.busy = false;
      settle(outcome);
    };
    const progress = (): JobProgress => ({
      ...(phase !== undefined ? { phase } : {}),
      ...(goldRows !== undefined ? { goldRows } : {}),
    });
    const onTimeout = () => finish({ status: "timeout", ...progress() }, "timeout");
    const onMessage = (raw: unknown) => {
      const notice = PhaseNotice.safeParse(raw);
      if (notice.success && notice.data.id === id) {
        // The next step of a multi-step job: its own time limit starts now.
        phase = notice.data.phase;
        goldRows = notice.data.gold_rows ?? goldRows;
        this.log.debug({ worker_pid: child.pid, caller, op: request.op, phase }, "query job step");
        clearTimeout(timer);
        timer = setTimeout(onTimeout, timeoutMs);
        return;
      }
      const reply = QueryReply.safeParse(raw);
      if (reply.success && reply.data.id === id) finish({ status: "done", reply: reply.data });
    };
    const onExit = () => {
      // A crash is not a stop we chose: the slot is gone already, nothing to kill.
      clearTimeout(timer);
      child.off("message", onMessage);
      signal?.removeEventListener("abort", onAbort);
      this.remove(slot);
      settle({ status: "crashed", message: "the query process stopped unexpectedly", ...progress() });
    };
    const onAbort = () => finish({ status: "cancelled" }, "cancelled");
    let timer = setTimeout(onTimeout, timeoutMs);
    child.on("message", onMessage);
    child.once("exit", onExit);
    signal?.addEventListener("abort", onAbort, { once: true });
    child.send({ id, request });
    this.log.debug({ worker_pid: child.pid, caller, op: request.op }, "query job started");
  }
}
