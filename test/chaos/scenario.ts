// The contract every chaos scenario implements. `npm run chaos` runs every file in
// test/chaos/scenarios/ (each default-exports one ChaosScenario) against real processes on
// loopback and writes one JSON report; test/chaos/chaos.test.ts runs the same scenarios with
// `bounded: true` (fewer cases, shorter loads) as part of `npm test` and asserts every check.

export interface ChaosContext {
  /** true inside `npm test`: keep case counts and load durations small (the whole suite in minutes). */
  readonly bounded: boolean;
  /** A fresh scratch directory for this scenario; removed after it ends. */
  readonly workDir: string;
  /** Progress lines for a person watching `npm run chaos`; not part of the report. */
  log(message: string): void;
}

/** One assertion a scenario makes about what happened (counts, order, states — never "fast enough"). */
export interface ChaosCheck {
  /** What must hold, in words: "after 100 calls with deadline_ms 1 the next ordinary call succeeds". */
  readonly name: string;
  readonly passed: boolean;
  /** What was observed, in words, for the report and for a failing test's message. */
  readonly detail: string;
}

/** The tallies the issue asks every chaos report to carry; a scenario reports the ones it exercises. */
export interface ChaosTallies {
  cases_tried: number;
  crashes: number;
  leaks: number;
  hangs: number;
  breaker_false_opens: number;
  calls_lost: number;
  sandbox_probes_tried?: number;
  sandbox_probes_contained?: number;
  judge_injections_tried?: number;
  judge_injections_changed_score?: number;
}

export interface ChaosScenarioResult {
  readonly tallies: ChaosTallies;
  readonly checks: readonly ChaosCheck[];
  /**
   * Measured figures for docs/security.md (latencies, RSS, heap sizes, counts), snake_case keys
   * with their unit in the name: `select1_p100_ms_behind_runaway`, `rss_mib_after_load`.
   */
  readonly figures: Readonly<Record<string, number | string | boolean | null>>;
}

export interface ChaosScenario {
  /** Short kebab-case name, also the file name: "breaker", "judge-injection", "sandbox-memory". */
  readonly name: string;
  /** Which finding(s) of the hardening issue it reproduces, in one sentence. */
  readonly description: string;
  run(context: ChaosContext): Promise<ChaosScenarioResult>;
}

export function check(name: string, passed: boolean, detail: string): ChaosCheck {
  return { name, passed, detail };
}

export function emptyTallies(): ChaosTallies {
  return { cases_tried: 0, crashes: 0, leaks: 0, hangs: 0, breaker_false_opens: 0, calls_lost: 0 };
}
