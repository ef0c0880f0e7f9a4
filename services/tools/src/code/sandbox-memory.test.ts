// Memory accounting, asserted from the host: a 256 MiB run that fills memfds, its tmpfs mounts, SysV
// or POSIX shared memory or shared mappings cannot make the host hold more than its limit, with a memory
// cgroup per run (where this host allows one) and without (rlimits, tmpfs sizes inside the limit,
// memfd_create and shmget denied). The host-side watch samples /proc/meminfo Shmem and the private
// memory of the sandbox's uids while each run goes on; it is shown to see memory a run holds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchHostMemory } from "@rlfactory/test-support/host-memory";
import { MEMORY_HOGS, memoryHolder } from "@rlfactory/test-support/sandbox-memory-hogs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeSandbox } from "./code-sandbox.ts";
import { memoryPlan } from "./sandbox-command.ts";
import { detectMemoryAccounting } from "./sandbox-memory.ts";

const MIB = 1024 * 1024;
const LIMIT_MB = 256;
/** What else may move the host's shared memory meanwhile (other processes of the machine). */
const SLACK_MB = 16;
const UID_BASE = 61_300;
const asRoot = process.getuid?.() === 0;
const cgroupHere = detectMemoryAccounting("auto").mode === "cgroup";

async function watchedRun(sandbox: CodeSandbox, code: string) {
  const uids = asRoot ? [sandbox.slotUid(0)!] : [];
  const watch = await watchHostMemory(uids);
  const result = await sandbox.run({ code, language: "python", memoryMb: LIMIT_MB, runTimeoutSec: 30 });
  const { peakRiseBytes } = await watch.stop();
  return { result, riseMb: peakRiseBytes / MIB, heldMb: Number(result.stdout.trim().split("\n").at(-1)) };
}

describe.each([
  { mode: "rlimit" as const, available: true },
  { mode: "cgroup" as const, available: cgroupHere },
])("memory accounting: $mode", ({ mode, available }) => {
  let sandbox: CodeSandbox;
  beforeAll(async () => {
    if (available)
      sandbox = await CodeSandbox.start({ concurrency: 1, uidBase: UID_BASE, memoryAccounting: mode });
  });

  it.skipIf(!available)("the host-side watch sees the memory a run holds", async () => {
    const { result, riseMb, heldMb } = await watchedRun(sandbox, memoryHolder(160));
    expect(result.status).toBe("ok");
    expect(heldMb).toBe(160);
    expect(riseMb).toBeGreaterThanOrEqual(heldMb - SLACK_MB);
  });

  const hogs = MEMORY_HOGS.filter((hog) => mode === "cgroup" || !hog.needsCgroup);
  it.skipIf(!available).each(hogs)(
    `a ${LIMIT_MB} MiB run: $name stays within the limit`,
    async ({ code }) => {
      const { result, riseMb } = await watchedRun(sandbox, code);
      expect(["ok", "memory_limit", "runtime_error"]).toContain(result.status);
      expect(riseMb).toBeLessThanOrEqual(LIMIT_MB + SLACK_MB);
    },
  );
});

describe("the fallback's tmpfs sizes", () => {
  it("are carved out of the run's limit, leaving the rest to the processes' rlimit", () => {
    const settings = new CodeSandbox({ concurrency: 1, uidBase: UID_BASE, memoryAccounting: "rlimit" })
      .settings;
    const req = { code: "print(1)", language: "python" as const, stdin: "", files: {}, runTimeoutSec: 1 };
    const plan = memoryPlan(settings, { ...req, memoryMb: 256 }, "rlimit");
    expect(plan).toEqual({ sandboxMb: 16, tmpMb: 16, shmMb: 8, processMb: 216 });
    const big = memoryPlan(
      settings,
      { ...req, memoryMb: 256, files: { "a.bin": Buffer.alloc(30 * MIB) } },
      "rlimit",
    );
    expect(big).toEqual({ sandboxMb: 32, tmpMb: 16, shmMb: 8, processMb: 200 });
    expect(memoryPlan(settings, { ...req, memoryMb: 256 }, "cgroup")).toEqual({
      sandboxMb: 64,
      tmpMb: 64,
      shmMb: 16,
      processMb: 256,
    });
  });
});

describe("choosing the memory accounting", () => {
  const root = mkdtempSync(join(tmpdir(), "rlf-cgroup-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("falls back to rlimits, saying why, where cgroup v2 does not delegate the memory controller and v1 has none", () => {
    // A cgroup v2 host whose container cgroup was given cpu and io but not memory.
    mkdirSync(join(root, "ctr"), { recursive: true });
    writeFileSync(join(root, "cgroup.controllers"), "cpu io memory pids\n");
    writeFileSync(join(root, "ctr", "cgroup.controllers"), "cpu io\n");
    const host = { mountRoot: root, selfCgroup: "0::/ctr\n" };
    expect(detectMemoryAccounting("auto", host)).toEqual({
      mode: "rlimit",
      reason: `cgroup v2: the memory controller is not delegated to ${join(root, "ctr")} (cgroup.controllers: cpu io); cgroup v1: no memory hierarchy`,
    });
    expect(() => detectMemoryAccounting("cgroup", host)).toThrow(
      /--memory-accounting cgroup, but no memory cgroup can be used here \(cgroup v2: the memory controller is not delegated/,
    );
    expect(detectMemoryAccounting("rlimit", host)).toEqual({
      mode: "rlimit",
      reason: "chosen by the operator (--memory-accounting rlimit)",
    });
  });

  it("says so where this process is in no cgroup at all", () => {
    expect(detectMemoryAccounting("auto", { mountRoot: join(root, "none"), selfCgroup: "" })).toEqual({
      mode: "rlimit",
      reason: "cgroup v2: this process is in no v2 cgroup; cgroup v1: no memory hierarchy",
    });
  });
});
