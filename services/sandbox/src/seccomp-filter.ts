// The seccomp filter every sandboxed program runs under: a classic-BPF program (what bwrap's
// `--seccomp FD` loads just before it executes the program) that denies a fixed list of system calls
// with EPERM and allows the rest. It checks the audit architecture first: a system call made through
// another ABI (i386 `int 0x80`, x32) is denied outright, so numbers are only ever read as x86_64's.
// Only x86_64 hosts are supported; elsewhere `seccompFilter` throws and the sandbox refuses to start.

/** System calls no sandboxed program may make (x86_64 numbers), denied with EPERM. */
export const DENIED_SYSCALLS = {
  // debugging / reading other processes' memory
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  // mounts and the filesystem tree
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  open_tree: 428,
  move_mount: 429,
  mount_setattr: 442,
  open_by_handle_at: 304,
  name_to_handle_at: 303,
  // namespaces
  unshare: 272,
  setns: 308,
  // kernel keyrings
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  // kernel surface often used in exploits
  bpf: 321,
  userfaultfd: 323,
  perf_event_open: 298,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  memfd_secret: 447,
  // kernels, modules and the machine
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  reboot: 169,
  swapon: 167,
  swapoff: 168,
  acct: 163,
  quotactl: 179,
  quotactl_fd: 443,
  syslog: 103,
  lookup_dcookie: 212,
  uselib: 134,
  iopl: 172,
  ioperm: 173,
  vhangup: 153,
  // clocks
  settimeofday: 164,
  clock_settime: 227,
  adjtimex: 159,
  clock_adjtime: 305,
} as const;

/**
 * Denied as well where no memory cgroup accounts for the run (see sandbox-memory.ts): memory they
 * create lives outside every rlimit. Shared memory stays possible through /dev/shm (a tmpfs whose size
 * counts against the run's limit) and MAP_SHARED mappings (inside RLIMIT_AS).
 */
export const UNACCOUNTED_MEMORY_SYSCALLS = {
  memfd_create: 319,
  shmget: 29,
} as const;

export type DeniedSyscall = keyof typeof DENIED_SYSCALLS | keyof typeof UNACCOUNTED_MEMORY_SYSCALLS;

/** clone3 answers ENOSYS (glibc then uses clone), so its flags need no inspection. */
const CLONE3 = 435;

export const AUDIT_ARCH_X86_64 = 0xc000003e;
/** Syscall numbers with this bit set are the x32 ABI's. */
const X32_SYSCALL_BIT = 0x40000000;

const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
/** Offsets in struct seccomp_data. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;

export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

export interface SeccompOptions {
  /** Also deny memfd_create and shmget (when no memory cgroup accounts for the run). */
  denyUnaccountedMemory: boolean;
}

/** The denied system calls by name, for these options. */
export function deniedSyscalls(opts: SeccompOptions): Record<DeniedSyscall, number> {
  return {
    ...DENIED_SYSCALLS,
    ...(opts.denyUnaccountedMemory ? UNACCOUNTED_MEMORY_SYSCALLS : {}),
  } as Record<DeniedSyscall, number>;
}

export class UnsupportedArchitecture extends Error {}

/** The filter as instructions. Throws UnsupportedArchitecture off x86_64. */
export function seccompProgram(opts: SeccompOptions, arch: string = process.arch): BpfInstruction[] {
  if (arch !== "x64")
    throw new UnsupportedArchitecture(
      `the code sandbox's seccomp filter is built for x86_64 only (this host is ${arch})`,
    );
  const denied = [...new Set(Object.values(deniedSyscalls(opts)))].sort((a, b) => a - b);
  // Layout: checks, then three returns at the end: ALLOW, EPERM, ENOSYS.
  const checks: Array<(at: number, end: number) => BpfInstruction> = [];
  const ret = { allow: 0, eperm: 1, enosys: 2 };
  const jumpTo = (target: keyof typeof ret, at: number, end: number) => end + ret[target] - (at + 1);
  checks.push(() => ld(ARCH_OFFSET));
  checks.push((at, end) => jump(BPF_JEQ_K, AUDIT_ARCH_X86_64, 0, jumpTo("eperm", at, end)));
  checks.push(() => ld(NR_OFFSET));
  checks.push((at, end) => jump(BPF_JGE_K, X32_SYSCALL_BIT, jumpTo("eperm", at, end), 0));
  checks.push((at, end) => jump(BPF_JEQ_K, CLONE3, jumpTo("enosys", at, end), 0));
  for (const nr of denied) checks.push((at, end) => jump(BPF_JEQ_K, nr, jumpTo("eperm", at, end), 0));
  // Falls through to ALLOW, which sits right after the checks.
  const end = checks.length;
  const program = checks.map((make, at) => make(at, end));
  for (const insn of program) {
    if (insn.jt > 255 || insn.jf > 255) throw new Error("seccomp filter: jump out of range");
  }
  program.push(
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | ENOSYS },
  );
  return program;
}

/** The filter as bwrap's `--seccomp FD` reads it: struct sock_filter[], 8 bytes each, host byte order. */
export function seccompFilter(opts: SeccompOptions, arch: string = process.arch): Buffer {
  const program = seccompProgram(opts, arch);
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(insn.jt, i * 8 + 2);
    out.writeUInt8(insn.jf, i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

function ld(offset: number): BpfInstruction {
  return { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset };
}

function jump(code: number, k: number, jt: number, jf: number): BpfInstruction {
  return { code, jt, jf, k: k >>> 0 };
}
