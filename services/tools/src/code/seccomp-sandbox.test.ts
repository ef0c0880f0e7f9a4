// The seccomp filter (@rlfactory/sandbox) in the code tool's sandbox: each denied system call made for
// real by a program in the sandbox, one test per call, answered EPERM.
import { DENIED_SYSCALLS, UNACCOUNTED_MEMORY_SYSCALLS } from "@rlfactory/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeSandbox } from "./code-sandbox.ts";

const EPERM = 1;
const DENIED_ALWAYS = Object.entries(DENIED_SYSCALLS);
const DENIED_WITHOUT_CGROUP = Object.entries(UNACCOUNTED_MEMORY_SYSCALLS);

/** A program that makes system call `nr` with zero arguments and prints the errno it got (0: none). */
function syscallProbe(nr: number): string {
  return [
    "import ctypes",
    "libc = ctypes.CDLL(None, use_errno=True)",
    `r = libc.syscall(${nr}, 0, 0, 0, 0, 0, 0)`,
    "print(ctypes.get_errno() if r == -1 else 0)",
  ].join("\n");
}

describe.each(["rlimit", "cgroup"] as const)("in a sandbox with %s memory accounting", (mode) => {
  let sandbox: CodeSandbox | undefined;
  beforeAll(async () => {
    const probe = new CodeSandbox({ concurrency: 1, uidBase: 61_200 });
    if (mode === "cgroup" && probe.memoryAccounting.mode !== "cgroup") return;
    sandbox = await CodeSandbox.start({ concurrency: 2, uidBase: 61_200, memoryAccounting: mode });
  });
  afterAll(() => {
    sandbox = undefined;
  });
  const run = async (code: string) => {
    if (sandbox === undefined) return undefined;
    return sandbox.run({ code, language: "python" });
  };

  it.each(DENIED_ALWAYS)("%s (%i) fails with EPERM", async (_name, nr) => {
    const result = await run(syscallProbe(nr));
    if (result === undefined) return; // no memory cgroup on this host (the rlimit runs cover the filter)
    expect(result).toMatchObject({ status: "ok", stdout: `${EPERM}\n` });
  });

  it.each(DENIED_WITHOUT_CGROUP)(`%s (%i): ${mode === "rlimit" ? "EPERM" : "allowed"}`, async (_name, nr) => {
    const result = await run(
      nr === UNACCOUNTED_MEMORY_SYSCALLS.memfd_create
        ? "import os\ntry:\n    os.memfd_create('x')\n    print(0)\nexcept OSError as e:\n    print(e.errno)"
        : "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nr = libc.shmget(0, 4096, 0o1600)\nprint(ctypes.get_errno() if r == -1 else 0)",
    );
    if (result === undefined) return;
    expect(result).toMatchObject({ status: "ok", stdout: mode === "rlimit" ? `${EPERM}\n` : "0\n" });
  });

  it("runs under the filter (Seccomp: 2), and threads and subprocesses still work", async () => {
    const result = await run(
      [
        "import subprocess, threading",
        "print(open('/proc/self/status').read().split('Seccomp:')[1].split()[0])",
        "t = threading.Thread(target=lambda: print('thread'))",
        "t.start(); t.join()",
        "print(subprocess.run(['echo', 'child'], capture_output=True, text=True).stdout.strip())",
      ].join("\n"),
    );
    if (result === undefined) return;
    expect(result).toMatchObject({ status: "ok", stdout: "2\nthread\nchild\n" });
  });
});
