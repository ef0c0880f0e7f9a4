// The bubblewrap + prlimit command line for one run: fresh user, PID, network, IPC and UTS namespaces;
// a filesystem of read-only /usr (and the Node binary), size-capped tmpfs for /sandbox, /tmp and
// /dev/shm, nothing else from the host; uid/gid 65534 inside; rlimits set just before the program.
import type { Language, RunRequest } from "./run-request.ts";
import { PROGRAM_FILE } from "./run-request.ts";
import type { SandboxSettings } from "./sandbox-limits.ts";

export const SANDBOX_DIR = "/sandbox";
/** Where the Node binary appears inside the sandbox. */
const SANDBOX_NODE = "/opt/node/bin/node";
const SANDBOX_UID = 65534;
/** Headroom of address space for V8's up-front reservations (Node 22 starts at ~750 MiB virtual). */
const NODE_ADDRESS_SPACE_EXTRA_MB = 1024;
const MIB = 1024 * 1024;

const PASSWD = `root:x:0:0:root:/:/usr/sbin/nologin\nnobody:x:${SANDBOX_UID}:${SANDBOX_UID}:nobody:${SANDBOX_DIR}:/usr/sbin/nologin\n`;
const GROUP = `root:x:0:\nnogroup:x:${SANDBOX_UID}:\n`;

export interface SandboxCommand {
  argv: string[];
  /** Data bwrap reads from file descriptors 3, 4, ... (in order) to create files in the sandbox. */
  fdData: Buffer[];
}

export function sandboxCommand(settings: SandboxSettings, req: RunRequest): SandboxCommand {
  const fdData: Buffer[] = [];
  const fromFd = (data: Buffer): string => String(3 + fdData.push(data) - 1);
  const disk = settings.diskMb * MIB;
  const argv = [
    "--unshare-all", // user, PID, network (own loopback only), IPC, UTS, cgroup namespaces
    "--unshare-user",
    "--disable-userns", // no nested user namespaces (less kernel surface, no regaining capabilities)
    "--die-with-parent",
    "--new-session",
    "--hostname",
    "sandbox",
    "--ro-bind",
    "/usr",
    "/usr",
    ...["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"],
    ...["--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"],
    ...["--proc", "/proc", "--dev", "/dev"],
    ...["--size", String(Math.ceil(disk / 4)), "--tmpfs", "/dev/shm"],
    ...["--size", String(disk), "--tmpfs", "/tmp"],
    ...["--size", String(disk), "--tmpfs", SANDBOX_DIR],
    ...(req.language === "javascript" ? ["--ro-bind", settings.nodePath, SANDBOX_NODE] : []),
    ...["--ro-bind-data", fromFd(Buffer.from(PASSWD)), "/etc/passwd"],
    ...["--ro-bind-data", fromFd(Buffer.from(GROUP)), "/etc/group"],
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
    "--clearenv",
    ...["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", SANDBOX_DIR],
    ...["--setenv", "LANG", "C.UTF-8", "--setenv", "TMPDIR", "/tmp"],
    "--",
    settings.prlimitPath,
    ...rlimits(settings, req),
    "--",
    ...program(settings, req.language, req.memoryMb),
  );
  return { argv, fdData };
}

function rlimits(settings: SandboxSettings, req: RunRequest): string[] {
  const cpu = Math.ceil(req.runTimeoutSec) + 1;
  const memory =
    req.language === "javascript"
      ? [`--data=${req.memoryMb * MIB}`, `--as=${(req.memoryMb + NODE_ADDRESS_SPACE_EXTRA_MB) * MIB}`]
      : [`--as=${req.memoryMb * MIB}`];
  return [
    ...memory,
    `--cpu=${cpu}:${cpu + 1}`,
    `--nproc=${settings.maxProcesses}`,
    `--fsize=${settings.diskMb * MIB}`,
    "--nofile=256",
    "--core=0",
  ];
}

function program(settings: SandboxSettings, language: Language, memoryMb: number): string[] {
  const file = PROGRAM_FILE[language];
  if (language === "python") return [settings.pythonPath, file];
  return [SANDBOX_NODE, `--max-old-space-size=${Math.floor((memoryMb * 3) / 4)}`, file];
}
