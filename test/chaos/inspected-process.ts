// A child process started with the V8 inspector on a loopback port chosen by the OS, so the chaos
// suite can read its memory without test hooks in product code: resident set size from
// /proc/PID/status, and the live heap after a forced full GC over the inspector protocol
// (HeapProfiler.collectGarbage, then Runtime.getHeapUsage: the main isolate's used heap).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { stopChild } from "@rlfactory/test-support/gateway-harness";

const MIB = 1024 * 1024;

export interface MemorySample {
  /** Resident set size of the process (all threads: workers included), MiB. */
  rss_mib: number;
  /** Used heap of the main isolate after a forced full GC, MiB. */
  live_heap_mib: number;
}

export interface InspectedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The first JSON log line matching `ready` (e.g. a tool server's `listening` line with its url). */
  readonly readyLine: Record<string, unknown>;
  memory(): Promise<MemorySample>;
  stop(): Promise<void>;
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
class Inspector {
  #ws: WebSocket;
  #next = 0;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.addEventListener("message", (event) => {
      const msg = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const waiter = msg.id === undefined ? undefined : this.#pending.get(msg.id);
      if (!waiter || msg.id === undefined) return;
      this.#pending.delete(msg.id);
      if (msg.error) waiter.reject(new Error(msg.error.message));
      else waiter.resolve(msg.result);
    });
    ws.addEventListener("close", () => {
      for (const w of this.#pending.values()) w.reject(new Error("inspector connection closed"));
      this.#pending.clear();
    });
  }

  static connect(url: string): Promise<Inspector> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.addEventListener("open", () => resolve(new Inspector(ws)), { once: true });
      ws.addEventListener("error", () => reject(new Error(`cannot connect to the inspector at ${url}`)), {
        once: true,
      });
    });
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#ws.close();
  }
}

export function rssMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/**
 * Spawns `node --inspect=127.0.0.1:0 ...args` and resolves once the inspector is connected and a
 * JSON log line (stdout or stderr) satisfies `ready`.
 */
export async function spawnInspected(
  args: readonly string[],
  ready: (line: Record<string, unknown>) => boolean,
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<InspectedProcess> {
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let inspectorUrl: string | undefined;
  let readyLine: Record<string, unknown> | undefined;
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${args.join(" ")} did not start in ${opts.timeoutMs ?? 30_000} ms:\n${output}`)),
      opts.timeoutMs ?? 30_000,
    );
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
    const onLine = (line: string) => {
      if (output.length < 20_000) output += `${line}\n`;
      inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
      if (readyLine === undefined && line.startsWith("{")) {
        try {
          const rec = JSON.parse(line) as Record<string, unknown>;
          if (ready(rec)) readyLine = rec;
        } catch {
          // not JSON
        }
      }
      if (inspectorUrl !== undefined && readyLine !== undefined) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: child.stdout! }).on("line", onLine);
    createInterface({ input: child.stderr! }).on("line", onLine);
  });
  try {
    await started;
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  const inspector = await Inspector.connect(inspectorUrl!);
  const pid = child.pid!;
  return {
    child,
    pid,
    readyLine: readyLine!,
    async memory() {
      // Two full collections: the first may leave objects whose finalizers free more.
      await inspector.send("HeapProfiler.collectGarbage");
      await inspector.send("HeapProfiler.collectGarbage");
      const heap = await inspector.send<{ usedSize: number }>("Runtime.getHeapUsage");
      return { rss_mib: rssMib(pid), live_heap_mib: Math.round((heap.usedSize / MIB) * 10) / 10 };
    },
    async stop() {
      inspector.close();
      await stopChild(child);
    },
  };
}
