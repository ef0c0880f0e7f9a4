// `npm start` (rlf stack) never hangs half-started: when a server cannot start — its fixed port held by
// another process, or not healthy within the readiness budget — the stack stops every child it started
// and exits non-zero with one line naming the server and the reason. The stack runs in its own process
// group; "every child stopped" is counted as no process left in that group.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { ROOT, stopChild } from "@rlfactory/test-support/gateway-harness";
import { afterEach, describe, expect, it } from "vitest";

const RLF = join(ROOT, "services/cli/bin/rlf.js");
/** The stack's fixed ports: tool servers, the judge (HTTP, gRPC), the gateway (gRPC, admin), the console. */
const STACK_PORTS = [7001, 7002, 7003, 7004, 7005, 50053, 50051, 8080, 8090];

/** Live processes whose process group is `pgid`. */
function processesInGroup(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** `rlf stack ARGS` in its own process group; resolves with its exit code and output once it exits. */
async function stackUntilExit(args: string[], withinMs: number) {
  const child: ChildProcess = spawn(process.execPath, [RLF, "stack", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr])
    stream?.on("data", (d: Buffer) => {
      output += d.toString();
    });
  const exited = once(child, "exit") as Promise<[number | null]>;
  const timer = setTimeout(() => {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  }, withinMs);
  const [code] = await exited;
  clearTimeout(timer);
  return { code, output, pgid: child.pid ?? 0, killedByTest: code === null, child };
}

describe("rlf stack when a server cannot start", () => {
  let holder: Server | undefined;
  const started: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of started.splice(0)) await stopChild(c);
    await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
    holder = undefined;
  });

  it("exits 1 naming the server whose port another process holds, leaving no process behind", async () => {
    const othersFree = await Promise.all(STACK_PORTS.filter((p) => p !== 7005).map(portFree));
    holder = createServer();
    holder.listen(7005, "127.0.0.1");
    await once(holder, "listening");
    const run = await stackUntilExit([], 90_000);
    started.push(run.child);
    expect(run.killedByTest, `rlf stack did not exit within 90 s:\n${run.output}`).toBe(false);
    expect(run.code).toBe(1);
    if (othersFree.every(Boolean))
      expect(run.output).toContain("cannot start judge: 127.0.0.1:7005 is in use by another process");
    else expect(run.output).toMatch(/cannot start .*: 127\.0\.0\.1:\d+ is in use by another process/);
    expect(processesInGroup(run.pgid)).toEqual([]);
  }, 120_000);

  it("stops every child and exits 1 naming the server that missed its readiness deadline", async () => {
    const free = (await Promise.all(STACK_PORTS.map(portFree))).every(Boolean);
    const run = await stackUntilExit(["--ready-timeout", "0.001"], 90_000);
    started.push(run.child);
    expect(run.killedByTest, `rlf stack did not exit within 90 s:\n${run.output}`).toBe(false);
    expect(run.code).toBe(1);
    if (free) {
      expect(run.output).toMatch(/rlf: tool server search not healthy on 127\.0\.0\.1:7001 after \d+ s/);
      expect(run.output).toContain("rlf stack: starting tool server search (127.0.0.1:7001)");
    }
    expect(processesInGroup(run.pgid)).toEqual([]);
  }, 120_000);
});
