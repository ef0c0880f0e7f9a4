// Runs one request in a fresh bubblewrap sandbox and waits for it: feeds stdin and the files, keeps
// capped stdout/stderr, and kills the whole sandbox (its PID namespace dies with bwrap) on the wall
// time limit, on output over the cap, or when `signal` aborts. With a memory cgroup per run, bwrap is
// started by a shell that waits (reading one line of its stdin) until the server has moved it into the
// run's cgroup, so that every process of the run is in it from the start.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { CappedOutput } from "./capped-output.ts";
import type { RunRequest } from "./run-request.ts";
import { classify, type RunResult } from "./run-result.ts";
import { sandboxCommand } from "./sandbox-command.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";
import { type MemoryAccounting, RunCgroup } from "./sandbox-memory.ts";

/** The host uid/gid bwrap starts as; undefined: the server's own (when it is not root). */
export interface HostIdentity {
  uid?: number;
  gid?: number;
}

/** Lines by which bwrap or prlimit (not the program) report that the sandbox could not be set up. */
const SETUP_FAILURE = /^(?:bwrap|prlimit): /;
const SETUP_FAILURE_CODES = new Set([1, 126, 127]);
/** Waits for one line on stdin (the server's go once the process is in its cgroup), then runs bwrap. */
const JOIN_CGROUP_THEN_EXEC = 'read -r _ || exit 125; exec "$@"';
/** After the sandbox is gone, how long to wait for its output pipes to drain before closing them. */
const DRAIN_GRACE_MS = 2_000;
/** How long to wait, at most, for the processes a program left behind to be killed. */
const NAMESPACE_END_WAIT_MS = 5_000;

export function runInSandbox(
  settings: SandboxSettings,
  req: RunRequest,
  identity: HostIdentity,
  accounting: MemoryAccounting,
  signal?: AbortSignal,
): Promise<RunResult> {
  const { argv, fdData } = sandboxCommand(settings, req, accounting.mode);
  const stdout = new CappedOutput(settings.maxOutputBytes);
  const stderr = new CappedOutput(settings.maxOutputBytes);
  const started = performance.now();
  let wallTimeout = false;
  let killed = false;
  let spawnError: Error | undefined;
  let cgroup: RunCgroup | undefined;
  try {
    if (accounting.mode === "cgroup") cgroup = RunCgroup.create(accounting, req.memoryMb);
  } catch (err) {
    return Promise.resolve({
      status: "sandbox_error",
      return_code: null,
      stdout: "",
      stderr: `could not create the run's memory cgroup: ${(err as Error).message}`,
      execution_time: 0,
      truncated: false,
    });
  }

  return new Promise<RunResult>((resolve) => {
    const statusFd = 3 + fdData.length;
    const bwrapArgv = [settings.bwrapPath, "--json-status-fd", String(statusFd), ...argv];
    const [command, ...args] = cgroup
      ? ["/bin/sh", "-c", JOIN_CGROUP_THEN_EXEC, "sh", ...bwrapArgv]
      : bwrapArgv;
    const child = spawn(command!, args, {
      stdio: ["pipe", "pipe", "pipe", ...fdData.map(() => "pipe" as const), "pipe"],
      env: { PATH: "/usr/bin:/bin" },
      cwd: "/",
      ...identity,
    });
    // The sandbox's init (PID 1 of its namespace), once bwrap has reported it. Killing it ends every
    // process of the namespace, and bwrap exits only after they are all gone; killing bwrap itself
    // (before the init is known) ends the init through --die-with-parent, asynchronously.
    let initPid: number | undefined;
    const kill = () => {
      if (child.exitCode !== null || child.signalCode !== null || killed) return;
      killed = true;
      try {
        if (initPid === undefined) child.kill("SIGKILL");
        else process.kill(initPid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    readInitPid(child.stdio[statusFd] as Readable | null, (pid) => {
      initPid = pid;
    });
    const timer = setTimeout(() => {
      wallTimeout = child.exitCode === null;
      kill();
    }, req.runTimeoutSec * 1000);
    const onAbort = () => kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) kill();

    child.on("error", (err) => {
      spawnError ??= err;
    });
    let stdinPrefix = "";
    if (cgroup && child.pid !== undefined) {
      try {
        cgroup.join(child.pid);
        stdinPrefix = "\n";
      } catch (err) {
        spawnError = new Error(`could not join the run's memory cgroup: ${(err as Error).message}`);
        kill();
      }
    }
    child.stdout?.on("data", (chunk: Buffer) => {
      if (!stdout.push(chunk)) kill();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (!stderr.push(chunk)) kill();
    });
    feed(child.stdin, Buffer.from(stdinPrefix + req.stdin));
    fdData.forEach((data, i) => {
      feed(child.stdio[3 + i] as Writable | null, data);
    });
    let drainTimer: NodeJS.Timeout | undefined;
    child.on("exit", () => {
      // Nothing in the sandbox outlives its init, so the pipes close; this is a last resort.
      drainTimer = setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
      }, DRAIN_GRACE_MS);
    });
    child.on("close", async (code) => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal?.removeEventListener("abort", onAbort);
      const execution_time = Math.round(performance.now() - started) / 1000;
      if (initPid !== undefined) await namespaceEnded(initPid);
      const oomKills = cgroup?.oomKills() ?? 0;
      await cgroup?.remove();
      const err = stderr.text();
      const exitCode = killed || spawnError ? null : code;
      const setupFailed =
        spawnError !== undefined ||
        (exitCode !== null && SETUP_FAILURE_CODES.has(exitCode) && SETUP_FAILURE.test(err));
      const status = classify({
        exitCode,
        stderr: err,
        wallTimeout,
        outputExceeded: stdout.exceeded || stderr.exceeded,
        setupFailed,
        memoryExhausted: oomKills > 0,
      });
      resolve({
        status,
        return_code: exitCode,
        stdout: stdout.text(),
        stderr: spawnError ? `could not start the sandbox: ${spawnError.message}` : err,
        execution_time,
        truncated: stdout.exceeded || stderr.exceeded,
      });
    });
  });
}

/**
 * Waits until the sandbox's init is a zombie or gone: the kernel lets a namespace's init finish
 * exiting only once every other process of the namespace has been killed and reaped. (bwrap may exit
 * as soon as the program does, while its init is still killing what the program left running.)
 */
async function namespaceEnded(initPid: number): Promise<void> {
  const deadline = performance.now() + NAMESPACE_END_WAIT_MS;
  while (performance.now() < deadline) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${initPid}/stat`, "utf8");
    } catch {
      return;
    }
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "Z" || state === "X") return;
    await sleep(5);
  }
}

/** Calls `found` with the `child-pid` of bwrap's JSON status lines (e.g. `{ "child-pid": 123 }`). */
function readInitPid(stream: Readable | null, found: (pid: number) => void): void {
  if (!stream) return;
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    text += chunk;
    const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (match) {
      found(Number(match[1]));
      stream.removeAllListeners("data");
      stream.resume();
    }
  });
  stream.on("error", () => {});
}

/** Writes all of `data` and closes the stream; a program that never reads it is not an error. */
function feed(stream: Writable | null, data: Buffer): void {
  if (!stream) return;
  stream.on("error", () => {});
  stream.end(data);
}
