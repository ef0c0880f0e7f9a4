// How `rlf stack` waits for its servers: a readiness deadline that scales with the machine's load, one
// human-readable line per server as it becomes ready, a "still waiting" line while some are not, and a
// typed failure naming the server and the reason when one cannot start (its port taken by another
// process, or not healthy in time) — after which the stack stops every child and exits non-zero.
import { createServer } from "node:net";
import { availableParallelism, loadavg } from "node:os";

/** Default base of the readiness wait, in seconds (`--ready-timeout`). */
export const DEFAULT_READY_TIMEOUT_S = 120;
/** Between "still waiting" lines. */
const PROGRESS_EVERY_MS = 15_000;

/** One server of the stack failed to start; the message names it and why. */
export class StackStartError extends Error {
  override name = "StackStartError";
  readonly code: "PORT_IN_USE" | "NOT_READY";
  readonly server: string;
  constructor(code: StackStartError["code"], server: string, message: string) {
    super(message);
    this.code = code;
    this.server = server;
  }
}

/**
 * The readiness budget now: the base, stretched by how overloaded the machine is (load average per
 * core above 1), so a loaded 2-core machine at load 15 waits 7.5× as long as an idle one.
 */
export function readinessBudgetMs(baseMs: number): number {
  const perCore = loadavg()[0]! / availableParallelism();
  return Math.round(baseMs * Math.max(1, perCore));
}

/** Resolves true when nothing listens on 127.0.0.1:`port` (we could bind it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** Throws PORT_IN_USE for the first server whose fixed port another process holds. */
export async function checkPortsFree(servers: readonly { name: string; port: number }[]): Promise<void> {
  for (const { name, port } of servers) {
    if (!(await portIsFree(port))) {
      throw new StackStartError(
        "PORT_IN_USE",
        name,
        `cannot start ${name}: 127.0.0.1:${port} is in use by another process (stop it, or stop the other stack)`,
      );
    }
  }
}

export interface Waited {
  name: string;
  port: number;
  /** Resolves true once the server answers its health check. */
  isHealthy(): Promise<boolean>;
  /** How many times it has been restarted so far. */
  restarts(): number;
}

/**
 * Waits until every server is healthy, writing `rlf stack: NAME ready on 127.0.0.1:PORT` for each as it
 * gets there and a "still waiting" line every 15 s; throws NOT_READY naming the first server still not
 * ready when the budget (re-read from the load as it goes) runs out.
 */
export async function waitAllHealthy(
  servers: readonly Waited[],
  baseMs: number,
  write: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  const pending = new Set(servers);
  let lastProgress = started;
  while (pending.size > 0) {
    for (const s of [...pending]) {
      if (await s.isHealthy()) {
        pending.delete(s);
        write(
          `rlf stack: ${s.name} ready on 127.0.0.1:${s.port} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
        );
      }
    }
    if (pending.size === 0) return;
    const elapsed = Date.now() - started;
    const budget = readinessBudgetMs(baseMs);
    if (elapsed > budget) {
      const first = [...pending][0]!;
      throw new StackStartError(
        "NOT_READY",
        first.name,
        `${first.name} not healthy on 127.0.0.1:${first.port} after ${Math.round(elapsed / 1000)} s` +
          ` (readiness budget ${Math.round(budget / 1000)} s at load ${loadavg()[0]!.toFixed(1)}; restarted ${first.restarts()} times;` +
          ` its own output is above; --ready-timeout SECONDS waits longer)`,
      );
    }
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      write(
        `rlf stack: still waiting for ${[...pending].map((s) => `${s.name} (127.0.0.1:${s.port})`).join(", ")}` +
          ` after ${Math.round(elapsed / 1000)} s; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores, giving up after ${Math.round(budget / 1000)} s`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
