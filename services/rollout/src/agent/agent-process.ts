// One run of a user's agent program (`rlf rollout agent --agent CMD`): the command line through
// `/bin/sh -c` in its own process group, its environment, the prompt on stdin, a deadline and a cancel
// signal. It always settles with how the program ended — exit code, signal, deadline or cancel — and
// the tails of its output; it never throws for the program's own failure and never hangs: on the
// deadline or cancel the whole process group gets SIGTERM, then SIGKILL after a grace period.
import { spawn } from "node:child_process";

export interface AgentProcessOptions {
  /** The command line, run by `/bin/sh -c` (e.g. `python3 my_agent.py --flag`). */
  command: string;
  /** Added to this process's environment. */
  env: Record<string, string>;
  /** Written to the program's stdin, which is then closed. */
  stdin: string;
  cwd?: string;
  /** Wall-clock budget of the run in milliseconds. */
  deadlineMs: number;
  /** Ends the run early (the rollout is cancelled). */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL (default 2000 ms). */
  graceMs?: number;
}

export interface AgentExit {
  /** How it ended: by itself (`exited`), at the deadline (`timeout`) or cancelled (`cancelled`). */
  outcome: "exited" | "timeout" | "cancelled" | "spawn_error";
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last 64 KiB of its stdout. */
  stdout: string;
  /** The last 4 KiB of its stderr. */
  stderr: string;
  /** Spawn failure message (`outcome: "spawn_error"`). */
  error?: string;
  durationMs: number;
}

const STDOUT_KEEP = 64 * 1024;
const STDERR_KEEP = 4 * 1024;

/** Appends to a tail buffer of at most `keep` characters. */
function tail(kept: string, chunk: string, keep: number): string {
  const next = kept + chunk;
  return next.length > keep ? next.slice(next.length - keep) : next;
}

/** Runs the agent program once; settles when it and its process group's output are done. */
export function runAgentProcess(options: AgentProcessOptions): Promise<AgentExit> {
  const started = performance.now();
  return new Promise((resolve) => {
    if (options.signal?.aborted) {
      resolve({ outcome: "cancelled", code: null, signal: null, stdout: "", stderr: "", durationMs: 0 });
      return;
    }
    const child = spawn("/bin/sh", ["-c", options.command], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // its own process group: the deadline ends the agent's children too
    });
    let stdout = "";
    let stderr = "";
    let ending: "timeout" | "cancelled" | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout = tail(stdout, c, STDOUT_KEEP);
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr = tail(stderr, c, STDERR_KEEP);
    });
    // an agent that never reads its stdin (or exits first) must not fail the run with EPIPE
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin);

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // the group is gone already
      }
    };
    const stop = (why: "timeout" | "cancelled") => {
      if (ending !== undefined) return;
      ending = why;
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), options.graceMs ?? 2000);
    };
    const deadline = setTimeout(() => stop("timeout"), options.deadlineMs);
    const onAbort = () => stop("cancelled");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    let settled = false;
    const settle = (exit: Omit<AgentExit, "durationMs" | "stdout" | "stderr">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener("abort", onAbort);
      // children left behind in the group (a background process of the agent) go with it
      killGroup("SIGKILL");
      if (killTimer !== undefined) clearTimeout(killTimer);
      resolve({ ...exit, stdout, stderr, durationMs: performance.now() - started });
    };
    child.on("error", (e) =>
      settle({ outcome: "spawn_error", code: null, signal: null, error: (e as Error).message }),
    );
    // `close`: the program exited and its stdout/stderr are drained
    child.on("close", (code, signal) => settle({ outcome: ending ?? "exited", code, signal }));
  });
}
