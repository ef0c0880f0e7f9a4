// Running test/support/src/testbed-server.ts as a child process, and reading its TESTBED_EVENTS file.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const TESTBED_SERVER_PATH = fileURLToPath(new URL("./testbed-server.ts", import.meta.url));

export interface TestbedProcess {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ListeningLine = z.object({ msg: z.literal("listening"), url: z.string(), port: z.number() });

/** Starts the testbed with `--http 0` (or `port`) and resolves once it logged its URL. */
export function startTestbedHttp(
  opts: { env?: Record<string, string>; port?: number } = {},
): Promise<TestbedProcess> {
  const child = spawn(process.execPath, [TESTBED_SERVER_PATH, "--http", String(opts.port ?? 0)], {
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    let stderr = "";
    lines.on("line", (line) => {
      stderr += `${line}\n`;
      try {
        const listening = ListeningLine.safeParse(JSON.parse(line));
        if (listening.success)
          resolve({ url: listening.data.url, port: listening.data.port, child, exited, stop });
      } catch {
        // not a JSON log line
      }
    });
    void exited.then((code) => reject(new Error(`testbed exited (${code}) before listening:\n${stderr}`)));
  });
}

const EventLine = z.object({
  event: z.enum(["executed", "finished", "failed", "cancelled"]),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  pid: z.number(),
  /** Handlers running in the server process just after this event. */
  in_flight: z.number().int().nonnegative(),
  t: z.number(),
});

export type TestbedEventRecord = z.infer<typeof EventLine>;

export function readTestbedEvents(file: string): TestbedEventRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => EventLine.parse(JSON.parse(line)));
}

/** Polls the events file until `pred` holds for some event (event delivery is asynchronous to the client). */
export async function waitForTestbedEvent(
  file: string,
  pred: (e: TestbedEventRecord) => boolean,
  timeoutMs = 5_000,
): Promise<TestbedEventRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readTestbedEvents(file).find(pred);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no matching testbed event within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The most calls matching `pred` that the server was executing at the same time, from the order of
 * their executed / finished / failed / cancelled events (one process appends them in that order).
 */
export function maxConcurrentExecutions(
  events: readonly TestbedEventRecord[],
  pred: (e: TestbedEventRecord) => boolean,
): number {
  let running = 0;
  let max = 0;
  for (const e of events) {
    if (!pred(e)) continue;
    running += e.event === "executed" ? 1 : -1;
    max = Math.max(max, running);
  }
  return max;
}
