// One persistent worker process (python/env_worker.py in its sandbox): requests multiplexed by id over
// JSON lines on its stdin/stdout (a line longer than `maxLineBytes` ends the worker, and only it). The
// worker answers in order; the host matches answers by id. When the
// process exits (crash, kill, memory limit, a call past its time limit), every request in flight is
// rejected with EPISODE_LOST and `onExit` tells the host, which reports every episode it held lost.
import { type ChildProcess, spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { EnvironmentError, type EnvironmentErrorCode, type ToolErrorCode } from "./environment-error.ts";
import type { WorkerCommand } from "./worker-sandbox.ts";

/** The last bytes of the worker's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

export interface WorkerFailure {
  code: EnvironmentErrorCode | ToolErrorCode | "UNKNOWN_TOOL" | "WORKER_ERROR" | "BAD_REQUEST";
  message: string;
}

type Answer = { ok: true; result: unknown } | { ok: false; error: WorkerFailure };

interface Pending {
  resolve: (answer: Answer) => void;
  reject: (err: Error) => void;
  sentAt: number;
  /** Unanswered this long, the worker is ended. */
  timeoutMs: number;
}

export interface WorkerSpawn {
  bwrapPath: string;
  command: WorkerCommand;
  /** Host uid/gid bwrap runs as (when the host is root: a uid of its own, so RLIMIT_NPROC applies). */
  uid?: number;
  gid?: number;
  /** A request unanswered this long ends the worker (its episodes are lost). */
  callTimeoutMs: number;
  /**
   * The longest line the worker may write on its protocol channel (bytes, without the newline): a
   * longer one (hostile code writing there) ends this worker alone, before the host buffers more.
   */
  maxLineBytes: number;
}

export class EnvironmentWorker {
  /** Episodes this worker holds (the host's count, for placing new ones). */
  episodes = 0;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  /** When the last answer came: the oldest request pending has been running since then at most. */
  private lastAnswerAt = 0;
  private nextId = 1;
  private corked = false;
  private stderrTail = "";
  /** The protocol line read so far (no newline yet), and its length. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private exitReason: string | undefined;
  private readonly watchdog: NodeJS.Timeout;
  private readonly exited: Promise<void>;

  private readonly options: WorkerSpawn;

  constructor(options: WorkerSpawn, onExit: (worker: EnvironmentWorker, reason: string) => void) {
    this.options = options;
    const { command } = options;
    this.child = spawn(options.bwrapPath, command.argv, {
      stdio: ["pipe", "pipe", "pipe", ...command.fdData.map(() => "pipe" as const)],
      env: { PATH: "/usr/bin:/bin" },
      cwd: "/",
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
    });
    command.fdData.forEach((data, i) => {
      const stream = this.child.stdio[3 + i] as Writable | null;
      stream?.on("error", () => {});
      stream?.end(data);
    });
    this.child.stdin?.on("error", () => {});
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    this.child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
    let spawnError: Error | undefined;
    this.child.on("error", (err) => {
      spawnError = err;
    });
    this.exited = new Promise((resolve) => {
      this.child.on("close", (code, signal) => {
        clearInterval(this.watchdog);
        const reason =
          this.exitReason ??
          (spawnError
            ? `the worker could not be started: ${spawnError.message}`
            : `the worker exited (${signal ?? `code ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim().slice(-500)}` : ""}`);
        this.exitReason = reason;
        const error = new EnvironmentError("EPISODE_LOST", reason);
        for (const pending of this.pending.values()) pending.reject(error);
        this.pending.clear();
        onExit(this, reason);
        resolve();
      });
    });
    this.watchdog = setInterval(() => this.checkTimeouts(), Math.min(1000, options.callTimeoutMs));
    this.watchdog.unref();
  }

  get alive(): boolean {
    return this.exitReason === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Sends one request; resolves with the worker's answer (ok or a typed failure). Unanswered for
   * `timeoutMs` (default: the call time limit), it ends the worker.
   */
  request(
    op: string,
    fields: Record<string, unknown>,
    timeoutMs = this.options.callTimeoutMs,
  ): Promise<Answer> {
    if (this.exitReason !== undefined)
      return Promise.reject(new EnvironmentError("EPISODE_LOST", this.exitReason));
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sentAt: performance.now(), timeoutMs });
      const stdin = this.child.stdin!;
      // Requests sent during one turn of the event loop leave in one write at its end (many episodes
      // in flight on one worker: one system call and one wake-up of the worker, not one each); a batch
      // that reaches half the pipe's high-water mark leaves at once.
      if (!this.corked) {
        this.corked = true;
        stdin.cork();
        setImmediate(() => this.uncork());
      }
      stdin.write(`${JSON.stringify({ id, op, ...fields })}\n`);
      if (stdin.writableLength >= stdin.writableHighWaterMark / 2) this.uncork();
    });
  }

  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.child.stdin?.uncork();
  }

  /** Ends the worker (SIGKILL: its sandbox and every process in it go with it); resolves once it is gone. */
  async kill(reason: string): Promise<void> {
    this.exitReason ??= reason;
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.exited;
  }

  /** Closes its stdin (the worker exits when it has answered everything) and waits for the exit. */
  async stop(reason: string): Promise<void> {
    this.exitReason ??= reason;
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    await this.exited;
    clearTimeout(timer);
  }

  /**
   * Splits the protocol channel into lines, holding at most `maxLineBytes` of an unfinished one: a
   * worker that writes more without a newline is ended (its episodes lost, the host and the other
   * workers untouched), instead of growing the host's memory until it dies.
   */
  private read(chunk: Buffer): void {
    let start = 0;
    while (this.exitReason === undefined) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (this.partialBytes + (end - start) > this.options.maxLineBytes) {
        this.partial = [];
        this.partialBytes = 0;
        void this.kill(
          `the worker wrote a protocol line longer than ${this.options.maxLineBytes} bytes (maxLineBytes); the worker was ended`,
        );
        return;
      }
      if (newline < 0) {
        if (end > start) {
          this.partial.push(chunk.subarray(start));
          this.partialBytes += end - start;
        }
        return;
      }
      const piece = chunk.subarray(start, end);
      const line = this.partialBytes === 0 ? piece : Buffer.concat([...this.partial, piece]);
      this.partial = [];
      this.partialBytes = 0;
      start = newline + 1;
      const text = line.toString("utf8");
      if (text.trim() !== "") this.answer(text.endsWith("\r") ? text.slice(0, -1) : text);
    }
  }

  private answer(line: string): void {
    let message: { id?: number; ok?: boolean; result?: unknown; error?: WorkerFailure };
    try {
      message = JSON.parse(line);
    } catch {
      void this.kill(`the worker wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const pending = message.id === undefined ? undefined : this.pending.get(message.id);
    if (pending === undefined) return;
    this.pending.delete(message.id!);
    this.lastAnswerAt = performance.now();
    pending.resolve(
      message.ok
        ? { ok: true, result: message.result }
        : {
            ok: false,
            error: message.error ?? { code: "WORKER_ERROR", message: "the worker answered without a result" },
          },
    );
  }

  private checkTimeouts(): void {
    const oldest = this.pending.values().next().value;
    if (oldest === undefined) return;
    // answers come in request order: the oldest request is the one to wait for, and it has run since it
    // was sent or since the answer before it came, whichever is later (requests sent together, a
    // batch's calls, wait in the pipe for the ones before them)
    const waited = performance.now() - Math.max(oldest.sentAt, this.lastAnswerAt);
    if (waited > oldest.timeoutMs)
      void this.kill(`a request ran past the call time limit (${oldest.timeoutMs} ms); the worker was ended`);
  }
}
