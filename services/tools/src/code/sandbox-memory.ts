// How a run's memory is accounted, decided once when the sandbox is created:
//
// - "cgroup": each run gets its own memory cgroup whose limit is the run's memory limit. It counts
//   every page the run's processes hold: anonymous memory, shared memory, memfds and the files of its
//   tmpfs mounts (all shmem, charged to the cgroup that touches them). Swap is off for it. cgroup v2
//   (memory.max) where our cgroup may create children with the memory controller enabled; otherwise
//   the v1 memory hierarchy (memory.limit_in_bytes) where our memory cgroup is writable.
// - "rlimit" (the fallback where neither is allowed): rlimits per process, the tmpfs sizes carved out
//   of the run's limit, and memfd_create / shmget denied by the seccomp filter.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export type MemoryAccountingChoice = "auto" | "cgroup" | "rlimit";

export type MemoryAccounting =
  | { mode: "cgroup"; version: 2 | 1; parent: string }
  | { mode: "rlimit"; reason: string };

/** Where cgroup file systems are mounted, and this process's cgroup membership (for tests: other roots). */
export interface CgroupHost {
  mountRoot: string;
  /** The text of /proc/self/cgroup. */
  selfCgroup: string;
}

const MIB = 1024 * 1024;

function readHost(): CgroupHost {
  let selfCgroup = "";
  try {
    selfCgroup = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    // not Linux, or no /proc: no cgroups
  }
  return { mountRoot: "/sys/fs/cgroup", selfCgroup };
}

/**
 * Finds a place to create per-run memory cgroups: a child of our own cgroup, made by creating and
 * removing a probe cgroup there (and, for v2, enabling the memory controller for our children by first
 * moving this process into a leaf of its own, as cgroup v2's delegation rules require).
 */
export function detectMemoryAccounting(
  choice: MemoryAccountingChoice,
  host: CgroupHost = readHost(),
): MemoryAccounting {
  if (choice === "rlimit")
    return { mode: "rlimit", reason: "chosen by the operator (--memory-accounting rlimit)" };
  const reasons: string[] = [];
  for (const attempt of [cgroupV2, cgroupV1]) {
    const found = attempt(host);
    if (typeof found === "string") reasons.push(found);
    else return found;
  }
  const reason = reasons.join("; ");
  if (choice === "cgroup")
    throw new Error(
      `code sandbox: --memory-accounting cgroup, but no memory cgroup can be used here (${reason})`,
    );
  return { mode: "rlimit", reason };
}

function cgroupV2(host: CgroupHost): MemoryAccounting | string {
  const path = /^0::(\/.*)$/m.exec(host.selfCgroup)?.[1];
  if (path === undefined) return "cgroup v2: this process is in no v2 cgroup";
  // A pure v2 host mounts it at the root; a hybrid one under unified/.
  const mount = [host.mountRoot, join(host.mountRoot, "unified")].find((m) =>
    existsSync(join(m, "cgroup.controllers")),
  );
  if (mount === undefined) return "cgroup v2: not mounted";
  const own = join(mount, path);
  const controllers = readWords(join(own, "cgroup.controllers"));
  if (!controllers.includes("memory"))
    return `cgroup v2: the memory controller is not delegated to ${own} (cgroup.controllers: ${controllers.join(" ") || "none"})`;
  const parent = join(own, "rlf-code-runs");
  try {
    if (!readWords(join(own, "cgroup.subtree_control")).includes("memory")) {
      // No processes may sit in a cgroup that enables controllers for its children: move them to a
      // leaf. All of them at the root of a cgroup namespace (a container's own cgroup); elsewhere only
      // this process, and where others remain, enabling the controller fails and the fallback is used.
      const leaf = join(own, "rlf-code-server");
      mkdirSync(leaf, { recursive: true });
      const movable = path === "/" ? readWords(join(own, "cgroup.procs")) : [String(process.pid)];
      for (const pid of movable) {
        try {
          writeFileSync(join(leaf, "cgroup.procs"), pid);
        } catch {
          // a process that exited meanwhile, or one we may not move
        }
      }
      writeFileSync(join(own, "cgroup.subtree_control"), "+memory");
    }
    mkdirSync(parent, { recursive: true });
    if (!readWords(join(parent, "cgroup.controllers")).includes("memory"))
      return `cgroup v2: the memory controller is not available in ${parent}`;
    writeFileSync(join(parent, "cgroup.subtree_control"), "+memory");
    probe(parent, "memory.max");
  } catch (err) {
    return `cgroup v2: cannot create memory cgroups under ${own} (${(err as Error).message})`;
  }
  return { mode: "cgroup", version: 2, parent };
}

function cgroupV1(host: CgroupHost): MemoryAccounting | string {
  const path = /^\d+:(?:[^:\n]*,)?memory(?:,[^:\n]*)?:(\/.*)$/m.exec(host.selfCgroup)?.[1];
  if (path === undefined) return "cgroup v1: no memory hierarchy";
  const own = join(host.mountRoot, "memory", path);
  const parent = join(own, "rlf-code-runs");
  try {
    mkdirSync(parent, { recursive: true });
    probe(parent, "memory.limit_in_bytes");
  } catch (err) {
    return `cgroup v1: cannot create memory cgroups under ${own} (${(err as Error).message})`;
  }
  return { mode: "cgroup", version: 1, parent };
}

/** Creates a child of `parent`, sets its limit and removes it; throws where that is not allowed. */
function probe(parent: string, limitFile: string): void {
  const dir = join(parent, `probe-${randomUUID()}`);
  mkdirSync(dir);
  try {
    writeFileSync(join(dir, limitFile), String(64 * MIB));
  } finally {
    rmdirSync(dir);
  }
}

function readWords(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** The memory cgroup of one run: created with its limit, joined by the run's first process, removed after. */
export class RunCgroup {
  readonly dir: string;
  private readonly version: 1 | 2;

  private constructor(dir: string, version: 1 | 2) {
    this.dir = dir;
    this.version = version;
  }

  static create(accounting: Extract<MemoryAccounting, { mode: "cgroup" }>, limitMb: number): RunCgroup {
    const dir = join(accounting.parent, `run-${randomUUID()}`);
    mkdirSync(dir);
    const cgroup = new RunCgroup(dir, accounting.version);
    const bytes = String(limitMb * MIB);
    try {
      if (accounting.version === 2) {
        writeFileSync(join(dir, "memory.max"), bytes);
        writeOptional(join(dir, "memory.swap.max"), "0");
        writeOptional(join(dir, "memory.oom.group"), "1");
      } else {
        writeFileSync(join(dir, "memory.limit_in_bytes"), bytes);
        // With swap accounting, memory + swap is held to the same limit: nothing goes to swap.
        writeOptional(join(dir, "memory.memsw.limit_in_bytes"), bytes);
        writeOptional(join(dir, "memory.swappiness"), "0");
      }
    } catch (err) {
      cgroup.removeNow();
      throw err;
    }
    return cgroup;
  }

  /** Moves a process (the run's first; its children follow) into the cgroup. */
  join(pid: number): void {
    writeFileSync(join(this.dir, "cgroup.procs"), String(pid));
  }

  /** How many times the kernel killed a process of this run for going over the limit. */
  oomKills(): number {
    const file = this.version === 2 ? "memory.events" : "memory.oom_control";
    try {
      const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(this.dir, file), "utf8"));
      return match ? Number(match[1]) : 0;
    } catch {
      return 0;
    }
  }

  /** The most memory the run held at once, in bytes (v1 and kernels with memory.peak; else undefined). */
  peakBytes(): number | undefined {
    const file = this.version === 2 ? "memory.peak" : "memory.max_usage_in_bytes";
    try {
      return Number(readFileSync(join(this.dir, file), "utf8").trim());
    } catch {
      return undefined;
    }
  }

  /** Removes the cgroup once its processes are gone (retrying briefly while the kernel lets go of them). */
  async remove(): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (this.removeNow()) return;
      await sleep(10);
    }
  }

  private removeNow(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "ENOENT";
    }
  }
}

function writeOptional(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch {
    // not offered by this kernel or configuration
  }
}

export function describeAccounting(accounting: MemoryAccounting): string {
  return accounting.mode === "cgroup"
    ? `a memory cgroup v${accounting.version} per run under ${accounting.parent}`
    : `rlimits with tmpfs sizes inside the limit and memfd_create/shmget denied (${accounting.reason})`;
}
