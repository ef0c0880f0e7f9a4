// Sandbox building blocks shared by the services that run untrusted code under bubblewrap.

export { bwrapIsolationArgs, SANDBOX_UID, sandboxIdentityFiles } from "./bwrap-isolation.ts";
export {
  AUDIT_ARCH_X86_64,
  type BpfInstruction,
  DENIED_SYSCALLS,
  type DeniedSyscall,
  deniedSyscalls,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  type SeccompOptions,
  seccompFilter,
  seccompProgram,
  UNACCOUNTED_MEMORY_SYSCALLS,
  UnsupportedArchitecture,
} from "./seccomp-filter.ts";
