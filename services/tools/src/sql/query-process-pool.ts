// A small pool of query processes (query-process.ts, forked with IPC). Each runs one job at a
// time; further jobs wait in order for a free process. A job that runs past its time limit, or
// whose caller cancels it, has its process killed (SIGKILL: the only sure way to stop a
// synchronous SQLite call) and replaced on demand, so the pool keeps answering other calls.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ProcessReady, QueryReply, type QueryRequest } from "./query-messages.ts";

export interface QueryProcessPoolOptions {
  /** Processes running jobs at once; default 2. */
  size?: number;
  /** V8 old-generation heap cap of each process; default 256 MiB. */
  maxHeapMb?: number;
}

export type JobOutcome =
  | { status: "done"; reply: QueryReply }
  | { status: "timeout" }
  | { status: "cancelled" }
  | { status: "crashed"; message: string };

interface Slot {
  child: ChildProcess;
  /** Resolves once the process has loaded SQLite; rejects with why it could not. */
  ready: Promise<void>;
  busy: boolean;
}

interface Pending {
  request: QueryRequest;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  resolve: (outcome: JobOutcome) => void;
  onQueuedAbort: () => void;
}

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
  private readonly size: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;

  constructor(opts: QueryProcessPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? 2);
    this.maxHeapMb = opts.maxHeapMb ?? 256;
  }

  /** Starts one process ahead of the first job. */
  warmUp(): void {
    if (this.slots.length === 0) this.slots.push(this.spawn());
  }

  run(request: QueryRequest, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome> {
    if (signal?.aborted === true) return Promise.resolve({ status: "cancelled" });
    return new Promise((resolve) => {
      const pending: Pending = {
        request,
        timeoutMs,
        signal,
        resolve,
        onQueuedAbort: () => {
          const index = this.queue.indexOf(pending);
          if (index === -1) return;
          this.queue.splice(index, 1);
          resolve({ status: "cancelled" });
        },
      };
      signal?.addEventListener("abort", pending.onQueuedAbort, { once: true });
      this.queue.push(pending);
      this.pump();
    });
  }

  /** Kills all processes (queued jobs stay queued and start new ones if run again). */
  close(): void {
    for (const slot of this.slots.splice(0)) slot.child.kill("SIGKILL");
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (slot === undefined) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
        this.slots.push(slot);
      }
      const pending = this.queue.shift()!;
      pending.signal?.removeEventListener("abort", pending.onQueuedAbort);
      slot.busy = true;
      void this.start(slot, pending);
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
    ready.catch(() => {});
    const slot: Slot = { child, ready, busy: false };
    child.once("exit", () => this.remove(slot));
    child.on("error", () => {});
    return slot;
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
  }

  private discard(slot: Slot): void {
    this.remove(slot);
    slot.child.kill("SIGKILL");
  }

  private async start(slot: Slot, pending: Pending): Promise<void> {
    try {
      await slot.ready;
    } catch (error) {
      this.discard(slot);
      pending.resolve({
        status: "crashed",
        message: `the SQL engine could not start: ${(error as Error).message}`,
      });
      this.pump();
      return;
    }
    const { child } = slot;
    const id = this.nextId++;
    const finish = (outcome: JobOutcome, discardProcess: boolean) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      pending.signal?.removeEventListener("abort", onAbort);
      if (discardProcess) this.discard(slot);
      else slot.busy = false;
      pending.resolve(outcome);
      this.pump();
    };
    const onMessage = (raw: unknown) => {
      const reply = QueryReply.safeParse(raw);
      if (reply.success && reply.data.id === id) finish({ status: "done", reply: reply.data }, false);
    };
    const onExit = () =>
      finish({ status: "crashed", message: "the query process stopped unexpectedly" }, true);
    const onAbort = () => finish({ status: "cancelled" }, true);
    const timer = setTimeout(() => finish({ status: "timeout" }, true), pending.timeoutMs);
    child.on("message", onMessage);
    child.once("exit", onExit);
    pending.signal?.addEventListener("abort", onAbort, { once: true });
    child.send({ id, request: pending.request });
  }
}
