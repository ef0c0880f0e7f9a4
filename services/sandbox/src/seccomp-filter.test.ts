// The seccomp filter: the BPF program read instruction by instruction (what the kernel would answer for
// each system call and architecture). The code tool's tests (services/tools/src/code/seccomp-sandbox.test.ts)
// make each denied call for real in its sandbox.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  AUDIT_ARCH_X86_64,
  type BpfInstruction,
  DENIED_SYSCALLS,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  seccompFilter,
  seccompProgram,
  UNACCOUNTED_MEMORY_SYSCALLS,
  UnsupportedArchitecture,
} from "./seccomp-filter.ts";

const EPERM = 1;
const ENOSYS = 38;
const AUDIT_ARCH_I386 = 0x40000003;

/** Runs a classic-BPF seccomp program on one system call, as the kernel does (the opcodes it uses). */
function evaluate(program: readonly BpfInstruction[], nr: number, arch = AUDIT_ARCH_X86_64): number {
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) acc = k === 0 ? nr : k === 4 ? arch : Number.NaN;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error("fell off the end of the program");
}

const DENIED_ALWAYS = Object.entries(DENIED_SYSCALLS);
const DENIED_WITHOUT_CGROUP = Object.entries(UNACCOUNTED_MEMORY_SYSCALLS);

describe("the seccomp program", () => {
  const strict = seccompProgram({ denyUnaccountedMemory: true });
  const cgroup = seccompProgram({ denyUnaccountedMemory: false });

  it.each([...DENIED_ALWAYS, ...DENIED_WITHOUT_CGROUP])("denies %s (%i) with EPERM", (_name, nr) => {
    expect(evaluate(strict, nr)).toBe(SECCOMP_RET_ERRNO | EPERM);
  });

  it("allows memfd_create and shmget when a memory cgroup accounts for the run, and denies the rest", () => {
    for (const [, nr] of DENIED_WITHOUT_CGROUP) expect(evaluate(cgroup, nr)).toBe(SECCOMP_RET_ALLOW);
    for (const [, nr] of DENIED_ALWAYS) expect(evaluate(cgroup, nr)).toBe(SECCOMP_RET_ERRNO | EPERM);
  });

  it("allows ordinary calls, answers clone3 ENOSYS (so libc uses clone), denies other ABIs", () => {
    // read, write, mmap, getpid, clone, execve, wait4, prlimit64
    for (const nr of [0, 1, 9, 39, 56, 59, 61, 302]) expect(evaluate(strict, nr)).toBe(SECCOMP_RET_ALLOW);
    expect(evaluate(strict, 435)).toBe(SECCOMP_RET_ERRNO | ENOSYS);
    expect(evaluate(strict, 39, AUDIT_ARCH_I386)).toBe(SECCOMP_RET_ERRNO | EPERM); // i386 getpid via int 0x80
    expect(evaluate(strict, 0x40000000 + 39)).toBe(SECCOMP_RET_ERRNO | EPERM); // x32 getpid
  });

  it("encodes struct sock_filter (8 bytes: code, jt, jf, k; little-endian)", () => {
    const bytes = seccompFilter({ denyUnaccountedMemory: true });
    expect(bytes.length).toBe(strict.length * 8);
    expect(bytes.readUInt16LE(0)).toBe(0x20);
    expect(bytes.readUInt32LE(4)).toBe(4); // first: load the architecture
    expect(bytes.readUInt32LE(12)).toBe(AUDIT_ARCH_X86_64);
  });

  it("refuses to build a filter for another architecture", () => {
    expect(() => seccompProgram({ denyUnaccountedMemory: true }, "arm64")).toThrow(UnsupportedArchitecture);
  });

  const header = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
  it.skipIf(!existsSync(header))("uses the kernel's x86_64 numbers", () => {
    const text = readFileSync(header, "utf8");
    for (const [name, nr] of [...DENIED_ALWAYS, ...DENIED_WITHOUT_CGROUP]) {
      expect(new RegExp(`^#define __NR_${name} (\\d+)$`, "m").exec(text)?.[1], name).toBe(String(nr));
    }
  });
});
