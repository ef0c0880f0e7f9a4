// runAgentProcess runs real programs (this Node binary): what it hands the program, how each way of
// ending is reported, and that a deadline or a cancel ends the program's whole process group.
import { describe, expect, it } from "vitest";
import { runAgentProcess } from "./agent-process.ts";

const node = (code: string) => `${JSON.stringify(process.execPath)} -e ${JSON.stringify(code)}`;

/** Whether a process runs (a zombie left for an init that does not reap counts as gone). */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return status !== "" && !/^State:\s+Z/m.test(status);
}

describe("runAgentProcess", () => {
  it("gives the program its environment and stdin, and reports its exit code and output", async () => {
    const exit = await runAgentProcess({
      command: node(
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log(process.env.RLF_X+':'+s);console.error('bye');process.exit(4)})",
      ),
      env: { RLF_X: "x1" },
      stdin: "the prompt",
      deadlineMs: 30_000,
    });
    expect(exit).toMatchObject({ outcome: "exited", code: 4, signal: null, stdout: "x1:the prompt\n" });
    expect(exit.stderr).toBe("bye\n");
  });

  it("past the deadline: timeout, and the program's children are gone too", async () => {
    // the program starts a child that prints its pid and lives on, then hangs itself
    const child = "console.log(process.pid); setInterval(() => {}, 1000)";
    const exit = await runAgentProcess({
      command: node(
        `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: 'inherit' }); setInterval(() => {}, 1000)`,
      ),
      env: {},
      stdin: "",
      deadlineMs: 6000,
    });
    expect(exit.outcome).toBe("timeout");
    const pid = Number(exit.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await alive(pid)).toBe(false);
  });

  it("a cancel ends it as cancelled; a program that ignores SIGTERM is killed after the grace period", async () => {
    const abort = new AbortController();
    const running = runAgentProcess({
      command: node("process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)"),
      env: {},
      stdin: "",
      deadlineMs: 60_000,
      graceMs: 200,
      signal: abort.signal,
    });
    abort.abort();
    const exit = await running;
    expect(exit.outcome).toBe("cancelled");
    expect(exit.code).toBeNull();
  });

  it("a command that cannot run is an exit of the shell, never a throw", async () => {
    const exit = await runAgentProcess({
      command: "/nonexistent/agent --flag",
      env: {},
      stdin: "",
      deadlineMs: 10_000,
    });
    expect(exit).toMatchObject({ outcome: "exited", code: 127 });
    expect(exit.stderr).toContain("/nonexistent/agent");
  });
});
