// Runs expression evaluation in a worker thread with a heap cap and a time limit, so that no
// expression can exhaust the tool server's memory or block its event loop. A worker that runs out
// of time or memory is discarded and replaced on the next call. Evaluations run one at a time.

import { once } from "node:events";
import { Worker } from "node:worker_threads";
import type { NumberMode } from "./evaluation-messages.ts";
import { EvaluationReply, WorkerReady } from "./evaluation-messages.ts";

/** The limits of one evaluation unless options say otherwise (docs/tools.md states them). */
export const EVALUATOR_DEFAULTS = { timeoutMs: 2_000, maxHeapMb: 64 } as const;

export interface IsolatedEvaluatorOptions {
  /** Limit for one evaluation, once the worker is up; default 2 s. */
  timeoutMs?: number;
  /** Old-generation heap cap of the worker; default 64 MiB. */
  maxHeapMb?: number;
}

export type EvaluationOutcome = { ok: true; result: number | string } | { ok: false; error: string };

interface EvaluationWorker {
  worker: Worker;
  /** Resolves once the worker has loaded mathjs; rejects if it dies first. */
  ready: Promise<void>;
}

const WORKER_URL = new URL("./evaluator-worker.ts", import.meta.url);
const FAILED = "The expression could not be evaluated";

export class IsolatedEvaluator {
  private readonly timeoutMs: number;
  private readonly maxHeapMb: number;
  private current: EvaluationWorker | undefined;
  private nextId = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: IsolatedEvaluatorOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? EVALUATOR_DEFAULTS.timeoutMs;
    this.maxHeapMb = opts.maxHeapMb ?? EVALUATOR_DEFAULTS.maxHeapMb;
  }

  /** Starts the worker ahead of the first evaluation (loading mathjs takes a moment). */
  warmUp(): void {
    this.current ??= this.spawn();
  }

  evaluate(
    expression: string,
    signal?: AbortSignal,
    mode: NumberMode = "number",
  ): Promise<EvaluationOutcome> {
    const run = this.queue.then(() =>
      signal?.aborted === true
        ? { ok: false as const, error: "The evaluation was cancelled" }
        : this.run(expression, mode),
    );
    this.queue = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await current?.worker.terminate();
  }

  private spawn(): EvaluationWorker {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb, maxYoungGenerationSizeMb: 16 },
      // Never onto our stdout: that is the stdio MCP transport.
      stdout: true,
    });
    worker.stdout.pipe(process.stderr, { end: false });
    // An idle worker must not keep the process alive (a stdio server exits when stdin closes).
    worker.unref();
    const spawned: EvaluationWorker = {
      worker,
      ready: new Promise<void>((resolve, reject) => {
        const onMessage = (raw: unknown) => {
          if (!WorkerReady.safeParse(raw).success) return;
          worker.off("message", onMessage);
          resolve();
        };
        worker.on("message", onMessage);
        once(worker, "exit").then(() => reject(new Error("evaluation worker exited")), reject);
      }),
    };
    spawned.ready.catch(() => {});
    worker.once("exit", () => {
      if (this.current === spawned) this.current = undefined;
    });
    return spawned;
  }

  private discard(spawned: EvaluationWorker): void {
    if (this.current === spawned) this.current = undefined;
    void spawned.worker.terminate();
  }

  private async run(expression: string, mode: NumberMode): Promise<EvaluationOutcome> {
    this.current ??= this.spawn();
    const spawned = this.current;
    try {
      await spawned.ready;
    } catch {
      this.discard(spawned);
      return { ok: false, error: FAILED };
    }
    const { worker } = spawned;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const finish = (outcome: EvaluationOutcome, discardWorker: boolean) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (discardWorker) this.discard(spawned);
        resolve(outcome);
      };
      const onMessage = (raw: unknown) => {
        const reply = EvaluationReply.safeParse(raw);
        if (!reply.success || reply.data.id !== id) return;
        finish(
          reply.data.ok ? { ok: true, result: reply.data.result } : { ok: false, error: reply.data.error },
          false,
        );
      };
      const onError = (error: Error & { code?: string }) => {
        const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
        finish({ ok: false, error: outOfMemory ? "The expression needs too much memory" : FAILED }, true);
      };
      const onExit = () => finish({ ok: false, error: FAILED }, true);
      const timer = setTimeout(
        () =>
          finish(
            { ok: false, error: `The expression took longer than ${this.timeoutMs} ms to evaluate` },
            true,
          ),
        this.timeoutMs,
      );
      worker.on("message", onMessage);
      worker.once("error", onError);
      worker.once("exit", onExit);
      worker.postMessage({ id, expression, mode });
    });
  }
}
