// Running one chaos scenario: a fresh work directory, its duration, and a scenario that throws
// recorded as a failed scenario (a failed check and one crash) instead of ending the run.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type ChaosCheck,
  type ChaosScenario,
  type ChaosScenarioResult,
  type ChaosTallies,
  check,
  emptyTallies,
} from "./scenario.ts";

export const SCENARIOS_DIR = join(dirname(fileURLToPath(import.meta.url)), "scenarios");

/** One scenario's entry in the chaos report. */
export interface ChaosScenarioReport extends ChaosScenarioResult {
  readonly name: string;
  readonly description: string;
  readonly passed: boolean;
  readonly duration_ms: number;
}

/** The scenario files, by name (file name without `.ts`), sorted. */
export function scenarioFiles(dir = SCENARIOS_DIR): { name: string; file: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"))
    .sort()
    .map((f) => ({ name: basename(f, ".ts"), file: join(dir, f) }));
}

/** Imports a scenario file and checks that its default export is a ChaosScenario named like the file. */
export async function loadScenario(file: string): Promise<ChaosScenario> {
  const mod = (await import(pathToFileURL(file).href)) as { default?: Partial<ChaosScenario> };
  const s = mod.default;
  if (!s || typeof s.name !== "string" || typeof s.description !== "string" || typeof s.run !== "function")
    throw new Error(`${file}: the default export is not a ChaosScenario { name, description, run }`);
  if (s.name !== basename(file, ".ts"))
    throw new Error(`${file}: the scenario is named "${s.name}"; name it like its file`);
  return s as ChaosScenario;
}

/** Runs one scenario file with a fresh work directory; never throws. */
export async function runScenarioFile(
  file: string,
  opts: { bounded: boolean; log?: (message: string) => void },
): Promise<ChaosScenarioReport> {
  const name = basename(file, ".ts");
  const log = opts.log ?? (() => {});
  const workDir = mkdtempSync(join(tmpdir(), `rlf-chaos-${name}-`));
  const started = performance.now();
  let description = "";
  let result: ChaosScenarioResult;
  try {
    const scenario = await loadScenario(file);
    description = scenario.description;
    result = await scenario.run({
      bounded: opts.bounded,
      workDir,
      log: (message) => log(`[${name}] ${message}`),
    });
  } catch (err) {
    const tallies = emptyTallies();
    tallies.crashes = 1;
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    result = {
      tallies,
      checks: [check("the scenario runs to its end without throwing", false, message)],
      figures: {},
    };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const duration_ms = Math.round(performance.now() - started);
  const passed = result.checks.length > 0 && result.checks.every((c) => c.passed);
  return { name, description, passed, duration_ms, ...result };
}

/** Sums every numeric tally over the scenarios (optional tallies only where some scenario set them). */
export function totalTallies(reports: readonly { tallies: ChaosTallies }[]): ChaosTallies {
  const total: Record<string, number> = { ...emptyTallies() };
  for (const r of reports)
    for (const [k, v] of Object.entries(r.tallies)) if (typeof v === "number") total[k] = (total[k] ?? 0) + v;
  return total as unknown as ChaosTallies;
}

/** The failing checks of a report, one per line, for a summary or a test's failure message. */
export function failedChecks(report: { name: string; checks: readonly ChaosCheck[] }): string[] {
  return report.checks.filter((c) => !c.passed).map((c) => `${report.name}: ${c.name} — ${c.detail}`);
}
