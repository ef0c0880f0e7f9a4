// The sandbox against hostile programs: no network, no host files, limits on time, memory,
// processes and output, and nothing left running afterwards. Real bubblewrap runs.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { resolve } from "node:path";
import { waitFor } from "@rlfactory/test-support/wait-for";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CodeSandbox } from "./code-sandbox.ts";

const REPO_PACKAGE_JSON = resolve(import.meta.dirname, "../../../../package.json");
const UID_BASE = 61_000;
const asRoot = process.getuid?.() === 0;

/** Non-zombie processes of the sandbox's slot uids (a zombie is no longer running). */
function runningSandboxProcesses(sandbox: CodeSandbox): string[] {
  const uids = Array.from({ length: sandbox.settings.concurrency }, (_, i) => sandbox.slotUid(i));
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,stat=,args=", "-u", uids.join(",")], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
  return out.split("\n").filter((line) => line.trim() !== "" && !/^\s*\d+\s+Z/.test(line));
}

describe("code sandbox", () => {
  let sandbox: CodeSandbox;
  beforeAll(async () => {
    sandbox = await CodeSandbox.start({ uidBase: UID_BASE, concurrency: 2 });
  });
  afterEach(() => {
    if (asRoot) expect(runningSandboxProcesses(sandbox)).toEqual([]);
  });

  const python = (code: string, extra: { stdin?: string; runTimeoutSec?: number; memoryMb?: number } = {}) =>
    sandbox.run({ code, language: "python", ...extra });

  describe("network", () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => server.close());

    it("reaches neither the host's loopback nor any outside address", async () => {
      const result = await python(
        [
          "import socket",
          `for host, port in [("127.0.0.1", ${port}), ("203.0.113.1", 80), ("example.com", 80)]:`,
          "    try:",
          "        socket.create_connection((host, port), timeout=2)",
          "        print(host, 'connected')",
          "    except OSError as e:",
          "        print(host, 'failed', type(e).__name__)",
        ].join("\n"),
      );
      expect(result.status).toBe("ok");
      expect(result.stdout).toBe(
        "127.0.0.1 failed ConnectionRefusedError\n" +
          "203.0.113.1 failed OSError\n" + // ENETUNREACH: no route at all
          "example.com failed gaierror\n",
      );
      expect(connections).toBe(0);
    });
  });

  it("sees none of the host's files and can write only its own tmpfs", async () => {
    expect(existsSync(REPO_PACKAGE_JSON)).toBe(true);
    const result = await python(
      [
        "import os",
        `for path in [${JSON.stringify(REPO_PACKAGE_JSON)}, "/etc/shadow", "/root", "/home", "/usr/../work"]:`,
        "    print(path, os.path.exists(path))",
        "for path in ['/usr/bin/evil', '/evil', '/etc/evil']:",
        "    try:",
        "        open(path, 'w')",
        "        print(path, 'written')",
        "    except OSError as e:",
        "        print(path, type(e).__name__)",
        "print(os.getuid(), os.getgid(), os.getcwd(), sorted(os.listdir('/')))",
      ].join("\n"),
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      `${REPO_PACKAGE_JSON} False\n/etc/shadow False\n/root False\n/home False\n/usr/../work False\n` +
        "/usr/bin/evil OSError\n/evil OSError\n/etc/evil OSError\n" +
        "65534 65534 /sandbox ['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'sandbox', 'sbin', 'tmp', 'usr']\n",
    );
  });

  it("cannot create namespaces of its own (no user namespace to regain capabilities in)", async () => {
    const result = await python(
      [
        "import subprocess",
        "for args in (['unshare', '--user', '--map-root-user', 'true'], ['unshare', '--net', 'true']):",
        "    print(subprocess.run(args, capture_output=True).returncode != 0)",
      ].join("\n"),
    );
    expect(result).toMatchObject({ status: "ok", stdout: "True\nTrue\n" });
  });

  it("starts every run on an empty working directory", async () => {
    await python("open('left-behind.txt', 'w').write('secret')");
    const next = await python("import os; print(os.listdir('.'))");
    expect(next.stdout).toBe("['main.py']\n");
  });

  it("kills an endless loop at the time limit", async () => {
    const result = await python("while True:\n    pass", { runTimeoutSec: 1 });
    expect(result).toMatchObject({ status: "timeout", return_code: null });
  });

  it("ends a Python memory hog with MemoryError at the memory limit, and allows memory below it", async () => {
    const hog = await python("x = bytearray(512 * 1024 * 1024)\nprint('allocated')", { memoryMb: 128 });
    expect(hog.status).toBe("memory_limit");
    expect(hog.stdout).toBe("");
    expect(hog.stderr).toMatch(/^MemoryError$/m);
    const modest = await python("x = bytearray(64 * 1024 * 1024)\nprint(len(x))", { memoryMb: 128 });
    expect(modest).toMatchObject({ status: "ok", stdout: `${64 * 1024 * 1024}\n` });
  });

  it("ends a JavaScript memory hog at the memory limit", async () => {
    const result = await sandbox.run({
      code: "const a = []; for (;;) a.push(new Array(1e6).fill(1));",
      language: "javascript",
      memoryMb: 128,
    });
    expect(result.status).toBe("memory_limit");
    expect(result.stderr).toMatch(/heap out of memory|Array buffer allocation failed/);
  });

  it("caps the number of processes, and kills what a program leaves running", async () => {
    const result = await python(
      [
        "import os, time",
        "n = 0",
        "try:",
        "    while True:",
        "        if os.fork() == 0:",
        "            time.sleep(60)",
        "            os._exit(0)",
        "        n += 1",
        "except OSError as e:",
        "    print(n < 64, e.errno)",
      ].join("\n"),
    );
    expect(result).toMatchObject({ status: "ok", stdout: "True 11\n" }); // EAGAIN from RLIMIT_NPROC
  });

  it("survives a fork bomb, killing it at the time limit", async () => {
    const result = await python(
      "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
      {
        runTimeoutSec: 2,
      },
    );
    expect(result.status).toBe("timeout");
  });

  it("kills a run whose output goes over the cap, keeping the first bytes", async () => {
    const result = await python("import sys\nwhile True:\n    sys.stdout.write('x' * 4096)");
    expect(result).toMatchObject({ status: "output_limit", truncated: true, return_code: null });
    expect(result.stdout).toBe("x".repeat(sandbox.settings.maxOutputBytes));
  });

  it("feeds stdin and writes the given files into the working directory", async () => {
    const result = await sandbox.run({
      code: "import sys\nprint(open('data/in.txt').read().upper(), sys.stdin.read()[::-1])",
      language: "python",
      stdin: "olleh",
      files: { "data/in.txt": Buffer.from("from a file") },
    });
    expect(result).toMatchObject({
      status: "ok",
      return_code: 0,
      stdout: "FROM A FILE hello\n",
      truncated: false,
    });
  });

  it("runs JavaScript with Node, reporting a thrown error as runtime_error", async () => {
    const ok = await sandbox.run({
      code: "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(s.trim().split(' ').reverse().join(' '), process.getuid()));",
      language: "javascript",
      stdin: "b a",
    });
    expect(ok).toMatchObject({ status: "ok", stdout: "a b 65534\n" });
    const thrown = await sandbox.run({ code: "throw new Error('boom')", language: "javascript" });
    expect(thrown).toMatchObject({ status: "runtime_error", return_code: 1 });
    expect(thrown.stderr).toMatch(/Error: boom/);
  });

  it.skipIf(!asRoot)("kills a run when its signal aborts, and only that run", async () => {
    const sleeper = { code: "import time\ntime.sleep(30)", language: "python" as const, runTimeoutSec: 30 };
    const first = new AbortController();
    const second = new AbortController();
    const firstRun = sandbox.run(sleeper, first.signal);
    const secondRun = sandbox.run(sleeper, second.signal);
    const programs = () =>
      runningSandboxProcesses(sandbox).filter((p) => /^\s*\d+\s+\S+\s+\/usr\/bin\/python3 main\.py$/.test(p));
    await waitFor(() => programs().length === 2, 5_000, "both programs to run");
    first.abort();
    expect(await firstRun).toMatchObject({ return_code: null, stdout: "" });
    expect(programs()).toHaveLength(1);
    second.abort();
    await secondRun;
  });
});
