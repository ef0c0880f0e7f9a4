// The bubblewrap + prlimit command line for one run: fresh user, PID, network, IPC and UTS namespaces;
// a filesystem of read-only /usr (and the Node binary), size-capped tmpfs for /sandbox, /tmp and
// /dev/shm, nothing else from the host; uid/gid 65534 inside; a seccomp filter; rlimits set just
// before the program.

import { bwrapIsolationArgs, SANDBOX_UID, sandboxIdentityFiles, seccompFilter } from "@rlfactory/sandbox";
import type { Language, RunRequest } from "./run-request.ts";
import { PROGRAM_FILE } from "./run-request.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";

export const SANDBOX_DIR = "/sandbox";
/** Where the Node binary appears inside the sandbox. */
const SANDBOX_NODE = "/opt/node/bin/node";
/** Headroom of address space for V8's up-front reservations (Node 22 starts at ~750 MiB virtual). */
const NODE_ADDRESS_SPACE_EXTRA_MB = 1024;
const MIB = 1024 * 1024;

const IDENTITY = sandboxIdentityFiles(SANDBOX_DIR);

export interface SandboxCommand {
  argv: string[];
  /** Data bwrap reads from file descriptors 3, 4, ... (in order) to create files in the sandbox. */
  fdData: Buffer[];
}

/** Sizes of the writable tmpfs mounts of a run, in MiB, and the memory left to its processes. */
export interface RunMemoryPlan {
  sandboxMb: number;
  tmpMb: number;
  shmMb: number;
  /** Python's RLIMIT_AS, JavaScript's RLIMIT_DATA. */
  processMb: number;
}

/**
 * With a memory cgroup per run ("cgroup"), the tmpfs mounts get their full sizes (`diskMb`, /dev/shm a
 * quarter) and their files count against the cgroup's limit like any memory; the processes' rlimit is
 * the whole limit. Without one ("rlimit"), the tmpfs sizes are taken out of the limit: /sandbox gets
 * 1/16 of it (at least the given files + 1 MiB), /tmp 1/16, /dev/shm 1/32, each at most `diskMb`, and
 * the processes' rlimit is what remains, so that a run's files and memory together stay within it.
 */
export function memoryPlan(
  settings: SandboxSettings,
  req: RunRequest,
  accounting: "cgroup" | "rlimit",
): RunMemoryPlan {
  const disk = settings.diskMb;
  if (accounting === "cgroup")
    return { sandboxMb: disk, tmpMb: disk, shmMb: Math.ceil(disk / 4), processMb: req.memoryMb };
  const given = Object.values(req.files).reduce(
    (sum, file) => sum + file.length,
    Buffer.byteLength(req.code),
  );
  const sandboxMb = Math.min(disk, Math.max(Math.floor(req.memoryMb / 16), Math.ceil(given / MIB) + 1));
  const tmpMb = Math.min(disk, Math.floor(req.memoryMb / 16));
  const shmMb = Math.min(Math.ceil(disk / 4), Math.floor(req.memoryMb / 32));
  return { sandboxMb, tmpMb, shmMb, processMb: req.memoryMb - sandboxMb - tmpMb - shmMb };
}

export function sandboxCommand(
  settings: SandboxSettings,
  req: RunRequest,
  accounting: "cgroup" | "rlimit",
): SandboxCommand {
  const fdData: Buffer[] = [];
  const fromFd = (data: Buffer): string => String(3 + fdData.push(data) - 1);
  const plan = memoryPlan(settings, req, accounting);
  const seccomp = seccompFilter({ denyUnaccountedMemory: accounting === "rlimit" });
  const argv = [
    ...bwrapIsolationArgs("sandbox"),
    ...["--size", String(plan.shmMb * MIB), "--tmpfs", "/dev/shm"],
    ...["--size", String(plan.tmpMb * MIB), "--tmpfs", "/tmp"],
    ...["--size", String(plan.sandboxMb * MIB), "--tmpfs", SANDBOX_DIR],
    ...(req.language === "javascript" ? ["--ro-bind", settings.nodePath, SANDBOX_NODE] : []),
    ...["--ro-bind-data", fromFd(Buffer.from(IDENTITY.passwd)), "/etc/passwd"],
    ...["--ro-bind-data", fromFd(Buffer.from(IDENTITY.group)), "/etc/group"],
  ];
  for (const [name, content] of Object.entries(req.files)) {
    argv.push("--perms", "0644", "--file", fromFd(content), `${SANDBOX_DIR}/${name}`);
  }
  argv.push(
    ...[
      "--perms",
      "0644",
      "--file",
      fromFd(Buffer.from(req.code)),
      `${SANDBOX_DIR}/${PROGRAM_FILE[req.language]}`,
    ],
    ...["--remount-ro", "/", "--remount-ro", "/dev"],
    ...["--chdir", SANDBOX_DIR, "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID)],
    ...["--seccomp", fromFd(seccomp)],
    "--clearenv",
    ...["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", SANDBOX_DIR],
    ...["--setenv", "LANG", "C.UTF-8", "--setenv", "TMPDIR", "/tmp"],
    "--",
    settings.prlimitPath,
    ...rlimits(settings, req, plan.processMb),
    "--",
    ...program(settings, req.language, plan.processMb),
  );
  return { argv, fdData };
}

function rlimits(settings: SandboxSettings, req: RunRequest, processMb: number): string[] {
  const cpu = Math.ceil(req.runTimeoutSec) + 1;
  const memory =
    req.language === "javascript"
      ? [`--data=${processMb * MIB}`, `--as=${(processMb + NODE_ADDRESS_SPACE_EXTRA_MB) * MIB}`]
      : [`--as=${processMb * MIB}`];
  return [
    ...memory,
    `--cpu=${cpu}:${cpu + 1}`,
    `--nproc=${settings.maxProcesses}`,
    `--fsize=${settings.diskMb * MIB}`,
    "--nofile=256",
    "--core=0",
    "--msgqueue=0", // no POSIX message queues (kernel memory outside every other limit)
  ];
}

function program(settings: SandboxSettings, language: Language, memoryMb: number): string[] {
  const file = PROGRAM_FILE[language];
  if (language === "python") return [settings.pythonPath, file];
  return [SANDBOX_NODE, `--max-old-space-size=${Math.floor((memoryMb * 3) / 4)}`, file];
}
