// The limits one sandboxed run is held to, and the server-wide settings that bound them.
import { availableParallelism } from "node:os";
import type { MemoryAccountingChoice } from "./sandbox-memory.ts";

/** What a caller may choose per run (seconds, MiB), within the server's maxima. */
export interface RunLimits {
  /** Wall-clock limit; the CPU-time limit is one second above it. */
  runTimeoutSec: number;
  /**
   * Everything the run may hold: its processes' memory, its tmpfs files and its shared memory (see
   * sandbox-memory.ts for how that is enforced with and without a memory cgroup).
   */
  memoryMb: number;
}

/** Server-wide settings: defaults and maxima of the per-run limits, and the fixed ones. */
export interface SandboxSettings {
  /** Runs at once; more wait in a queue. Default: the number of CPUs. */
  concurrency: number;
  defaultRunTimeoutSec: number;
  /** The operator's maximum (`--max-run-timeout`): a caller asking for more is refused. */
  maxRunTimeoutSec: number;
  defaultMemoryMb: number;
  /** The operator's maximum (`--max-memory`): a caller asking for more is refused. */
  maxMemoryMb: number;
  /** How memory is accounted (`--memory-accounting`): a cgroup per run where allowed ("auto"), or rlimits. */
  memoryAccounting: MemoryAccountingChoice;
  /** stdout and stderr are each kept up to this; a run writing more is killed (status output_limit). */
  maxOutputBytes: number;
  /** RLIMIT_NPROC: processes and threads of the run (counted in the run's own user namespace). */
  maxProcesses: number;
  /**
   * Largest size of each writable tmpfs (/sandbox, /tmp; /dev/shm gets a quarter) and RLIMIT_FSIZE.
   * Without a memory cgroup the sizes are also taken out of the run's memory limit (sandbox-command.ts).
   */
  diskMb: number;
  /** Outside uid/gid of the run in slot i is uidBase + i (only when the server runs as root). */
  uidBase: number;
  /** The Node binary run for JavaScript (bound read-only into the sandbox). */
  nodePath: string;
  /** The Python interpreter run for Python; must live under /usr (the only host tree in the sandbox). */
  pythonPath: string;
  /** bubblewrap: a path, or a name looked up on the server's PATH when the sandbox is created. */
  bwrapPath: string;
  /** Run inside the sandbox, so it must live under /usr. */
  prlimitPath: string;
}

export const DEFAULT_SETTINGS: SandboxSettings = {
  concurrency: availableParallelism(),
  defaultRunTimeoutSec: 10,
  maxRunTimeoutSec: 60,
  defaultMemoryMb: 256,
  maxMemoryMb: 1024,
  memoryAccounting: "auto",
  maxOutputBytes: 64 * 1024,
  maxProcesses: 64,
  diskMb: 64,
  uidBase: 60_000,
  nodePath: process.execPath,
  pythonPath: "/usr/bin/python3",
  bwrapPath: "bwrap",
  prlimitPath: "/usr/bin/prlimit",
};

/** The smallest memory limit accepted: Node cannot start its heap below this. */
export const MIN_MEMORY_MB = 64;

export function resolveSettings(overrides: Partial<SandboxSettings> = {}): SandboxSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const settings: SandboxSettings = { ...DEFAULT_SETTINGS, ...defined };
  // A lowered maximum lowers the defaults with it unless they were given too.
  if (overrides.defaultRunTimeoutSec === undefined)
    settings.defaultRunTimeoutSec = Math.min(settings.defaultRunTimeoutSec, settings.maxRunTimeoutSec);
  if (overrides.defaultMemoryMb === undefined)
    settings.defaultMemoryMb = Math.min(settings.defaultMemoryMb, settings.maxMemoryMb);
  const positive = [
    "concurrency",
    "defaultRunTimeoutSec",
    "maxRunTimeoutSec",
    "maxOutputBytes",
    "maxProcesses",
    "diskMb",
  ] as const;
  for (const key of positive) {
    if (!(settings[key] > 0)) throw new Error(`code sandbox: ${key} must be positive`);
  }
  if (!Number.isInteger(settings.concurrency))
    throw new Error("code sandbox: concurrency must be an integer");
  if (settings.defaultRunTimeoutSec > settings.maxRunTimeoutSec)
    throw new Error("code sandbox: the default run timeout is above the maximum");
  if (settings.defaultMemoryMb < MIN_MEMORY_MB || settings.defaultMemoryMb > settings.maxMemoryMb)
    throw new Error(
      `code sandbox: the default memory limit must be between ${MIN_MEMORY_MB} MiB and the maximum`,
    );
  if (
    !Number.isInteger(settings.uidBase) ||
    settings.uidBase < 1000 ||
    settings.uidBase + settings.concurrency > 65_534
  )
    throw new Error("code sandbox: uidBase + concurrency must stay within 1000..65534");
  if (!["auto", "cgroup", "rlimit"].includes(settings.memoryAccounting))
    throw new Error("code sandbox: memoryAccounting must be auto, cgroup or rlimit");
  return settings;
}
