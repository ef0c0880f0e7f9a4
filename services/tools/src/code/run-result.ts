// How a sandboxed run ended, and how that is told apart from what the process left behind.

export const RUN_STATUSES = [
  "ok",
  "runtime_error",
  "timeout",
  "memory_limit",
  "output_limit",
  "sandbox_error",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunResult {
  status: RunStatus;
  /** Exit code (128 + signal for a program killed by a signal); null when the sandbox killed it or never started it. */
  return_code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock seconds from start to exit, sandbox start-up included. */
  execution_time: number;
  /** stdout or stderr went over the output cap and was cut. */
  truncated: boolean;
}

/** What the runner observed, before it is classified. */
export interface RunObservation {
  /** null when the sandbox was killed by the server (time, output, cancellation) or could not start. */
  exitCode: number | null;
  stderr: string;
  wallTimeout: boolean;
  outputExceeded: boolean;
  /** The sandbox could not be started or set up (bwrap/prlimit failed, not the program). */
  setupFailed: boolean;
  /** The kernel killed a process of the run for going over its memory cgroup's limit. */
  memoryExhausted?: boolean;
}

/** SIGXCPU: the CPU-time limit (RLIMIT_CPU) was reached; bwrap exits with 128 + the signal. */
const CPU_LIMIT_EXIT = 128 + 24;

const MEMORY_SIGNS = [
  /^MemoryError\b/m, // Python, uncaught
  /JavaScript heap out of memory/,
  /Fatal process out of memory/,
  /RangeError: Array buffer allocation failed/,
  // V8 aborting when the data rlimit refuses memory before its heap limit is reached
  /# Fatal error in .*\n(?:#.*\n)*# Check failed: \(result\.ptr\) != nullptr/,
  /Allocation failed - process out of memory/,
  /FATAL ERROR: .*Allocation failed/,
];

export function classify(o: RunObservation): RunStatus {
  if (o.setupFailed) return "sandbox_error";
  if (o.wallTimeout || o.exitCode === CPU_LIMIT_EXIT) return "timeout";
  if (o.outputExceeded) return "output_limit";
  if (o.exitCode === 0) return "ok";
  if (o.memoryExhausted) return "memory_limit";
  if (MEMORY_SIGNS.some((sign) => sign.test(o.stderr))) return "memory_limit";
  return "runtime_error";
}
