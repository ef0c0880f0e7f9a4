// The bubblewrap + prlimit command line of one environment worker: fresh user, PID, network (no
// interface but its own loopback), IPC and UTS namespaces; read-only /usr, the worker script, the
// environment's module folders and its venv, and nothing else of the host; a read-only /dev;
// size-capped tmpfs /tmp and /dev/shm;
// uid/gid 65534 inside; the shared seccomp filter; rlimits (address space, processes, open files,
// file size, no core dumps) set just before Python starts.
import { dirname } from "node:path";
import { bwrapIsolationArgs, SANDBOX_UID, sandboxIdentityFiles, seccompFilter } from "@rlfactory/sandbox";

const MIB = 1024 * 1024;
const IDENTITY = sandboxIdentityFiles("/tmp");

/** The limits every worker of a host is held to (the operator's, not the episode's). */
export interface WorkerLimits {
  /** RLIMIT_AS of the worker (all its episodes together), MiB. */
  memoryMb: number;
  /** Size of the worker's writable /tmp and of its /dev/shm (each a tmpfs), MiB; also RLIMIT_FSIZE. */
  tmpMb: number;
  /** RLIMIT_NPROC: processes and threads (counted for the worker's own uid). */
  maxProcesses: number;
  /** RLIMIT_NOFILE. */
  maxOpenFiles: number;
}

export interface WorkerCommandInput {
  limits: WorkerLimits;
  /** The interpreter, as seen inside the sandbox (under /usr or inside a bound folder). */
  python: string;
  /** The worker script (env_worker.py); its folder is bound read-only. */
  workerScript: string;
  /** Folders bound read-only at the same path: module folders, the venv. */
  readOnly: string[];
  prlimitPath: string;
}

export interface WorkerCommand {
  /** bwrap's arguments (after the bwrap binary). */
  argv: string[];
  /** Data bwrap reads from file descriptors 3, 4, ... in order. */
  fdData: Buffer[];
}

export function workerCommand(input: WorkerCommandInput): WorkerCommand {
  const fdData: Buffer[] = [];
  const fromFd = (data: Buffer): string => String(3 + fdData.push(data) - 1);
  const { limits } = input;
  const binds = [...new Set([dirname(input.workerScript), ...input.readOnly])].sort();
  const argv = [
    ...bwrapIsolationArgs("environment"),
    // bwrap's /dev is a tmpfs without a size: /dev/shm gets its own capped one and /dev goes
    // read-only below, so no file outside these caps grows past the worker's memory limit
    ...["--size", String(limits.tmpMb * MIB), "--tmpfs", "/dev/shm"],
    ...["--size", String(limits.tmpMb * MIB), "--tmpfs", "/tmp"],
    ...binds.flatMap((dir) => ["--ro-bind", dir, dir]),
    ...["--ro-bind-data", fromFd(Buffer.from(IDENTITY.passwd)), "/etc/passwd"],
    ...["--ro-bind-data", fromFd(Buffer.from(IDENTITY.group)), "/etc/group"],
    ...["--remount-ro", "/", "--remount-ro", "/dev"],
    ...["--chdir", "/tmp", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID)],
    // No memory cgroup here: memory that no rlimit counts (memfd_create, shmget) is denied too.
    ...["--seccomp", fromFd(seccompFilter({ denyUnaccountedMemory: true }))],
    "--clearenv",
    ...["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8"],
    ...["--setenv", "TMPDIR", "/tmp", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"],
    "--",
    input.prlimitPath,
    `--as=${limits.memoryMb * MIB}`,
    `--nproc=${limits.maxProcesses}`,
    `--nofile=${limits.maxOpenFiles}`,
    `--fsize=${limits.tmpMb * MIB}`,
    "--core=0",
    "--msgqueue=0",
    "--",
    input.python,
    "-I", // isolated: no PYTHONPATH, no user site, no script folder on sys.path
    input.workerScript,
  ];
  return { argv, fdData };
}
