// The sandbox service: runs programs in bubblewrap sandboxes through a bounded pool of slots (one
// host uid per slot when the server is root), checks that sandboxing works here (and says why not),
// and runs test cases against a program.
import { resolve as resolvePath } from "node:path";
import { seccompProgram, UnsupportedArchitecture } from "@rlfactory/sandbox";
import { outputMatches } from "./output-match.ts";
import type { Language, RunRequest } from "./run-request.ts";
import type { RunResult, RunStatus } from "./run-result.ts";
import { resolveSettings, type SandboxSettings } from "./sandbox-limits.ts";
import { detectMemoryAccounting, type MemoryAccounting } from "./sandbox-memory.ts";
import { bwrapMissing, explainFailedRun, locateExecutable, SandboxUnavailable } from "./sandbox-probe.ts";
import { type HostIdentity, runInSandbox } from "./sandbox-process.ts";
import { SlotPool } from "./slot-pool.ts";

export interface RunOptions {
  code: string;
  language: Language;
  stdin?: string;
  files?: Record<string, Buffer>;
  runTimeoutSec?: number;
  memoryMb?: number;
}

export interface TestCase {
  stdin: string;
  expected_stdout: string;
}

export interface TestCaseResult {
  passed: boolean;
  status: RunStatus;
  stdout: string;
  stderr: string;
  execution_time: number;
}

export interface TestsResult {
  passed: number;
  total: number;
  results: TestCaseResult[];
}

export class CodeSandbox {
  readonly settings: SandboxSettings;
  /** How each run's memory is held to its limit: a memory cgroup per run, or rlimits (the fallback). */
  readonly memoryAccounting: MemoryAccounting;
  private readonly pool: SlotPool;
  private readonly asRoot = process.getuid?.() === 0;
  /** Set when bwrap could not be found (the settings then keep the name that was looked up). */
  private readonly bwrapNotFound: boolean;

  /** Settings are checked here; whether sandboxing works is `check()`'s question. */
  constructor(overrides: Partial<SandboxSettings> = {}) {
    const settings = resolveSettings(overrides);
    if (!resolvePath(settings.pythonPath).startsWith("/usr/"))
      throw new Error(
        `code sandbox: the Python interpreter must live under /usr (got ${settings.pythonPath})`,
      );
    const bwrap = locateExecutable(settings.bwrapPath);
    this.bwrapNotFound = bwrap === undefined;
    this.settings = { ...settings, bwrapPath: bwrap ?? settings.bwrapPath };
    this.pool = new SlotPool(this.settings.concurrency);
    this.memoryAccounting = detectMemoryAccounting(this.settings.memoryAccounting);
  }

  /** A sandbox whose Python and JavaScript runs have been checked to work; throws SandboxUnavailable if not. */
  static async start(overrides: Partial<SandboxSettings> = {}): Promise<CodeSandbox> {
    const sandbox = new CodeSandbox(overrides);
    const unavailable = await sandbox.check();
    if (unavailable !== undefined) throw new SandboxUnavailable(unavailable);
    return sandbox;
  }

  /** The host uid of the runs in `slot`; undefined when the server is not root (runs use its uid). */
  slotUid(slot: number): number | undefined {
    return this.asRoot ? this.settings.uidBase + slot : undefined;
  }

  /** Runs a program; rejects only if `signal` aborts while it waits for a slot. */
  run(opts: RunOptions, signal?: AbortSignal): Promise<RunResult> {
    const req: RunRequest = {
      code: opts.code,
      language: opts.language,
      stdin: opts.stdin ?? "",
      files: opts.files ?? {},
      runTimeoutSec: opts.runTimeoutSec ?? this.settings.defaultRunTimeoutSec,
      memoryMb: opts.memoryMb ?? this.settings.defaultMemoryMb,
    };
    return this.pool.with((slot) => {
      const uid = this.slotUid(slot);
      const identity: HostIdentity = uid === undefined ? {} : { uid, gid: uid };
      return runInSandbox(this.settings, req, identity, this.memoryAccounting, signal);
    }, signal);
  }

  /** Runs the program once per test case (as many at once as the pool allows), comparing stdout. */
  async runTests(opts: Omit<RunOptions, "stdin">, tests: readonly TestCase[], signal?: AbortSignal) {
    const results: TestCaseResult[] = new Array(tests.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < tests.length; i = next++) {
        const test = tests[i]!;
        const run = await this.run({ ...opts, stdin: test.stdin }, signal);
        results[i] = {
          passed: run.status === "ok" && outputMatches(run.stdout, test.expected_stdout),
          status: run.status,
          stdout: run.stdout,
          stderr: run.stderr,
          execution_time: run.execution_time,
        };
      }
    };
    const workers = Math.min(tests.length, this.settings.concurrency);
    await Promise.all(Array.from({ length: workers }, worker));
    return {
      passed: results.filter((r) => r.passed).length,
      total: tests.length,
      results,
    } satisfies TestsResult;
  }

  /**
   * Runs a Python and a JavaScript test program through the real sandbox (bwrap with the sandbox's own
   * arguments). Resolves undefined when both work, else why not and how to fix it, in one line.
   */
  async check(): Promise<string | undefined> {
    if (this.bwrapNotFound) return bwrapMissing(this.settings.bwrapPath);
    try {
      seccompProgram({ denyUnaccountedMemory: true });
    } catch (err) {
      if (err instanceof UnsupportedArchitecture) return err.message;
      throw err;
    }
    const checks = [
      { language: "python" as const, code: "print(6 * 7)" },
      { language: "javascript" as const, code: "console.log(6 * 7)" },
    ];
    for (const check of checks) {
      const result = await this.run({ ...check, runTimeoutSec: 20 });
      if (result.status !== "ok" || result.stdout.trim() !== "42")
        return explainFailedRun(check.language, result, this.settings);
    }
    return undefined;
  }
}
