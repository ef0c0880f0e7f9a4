// The chaos suite: reproduces the hardening findings against real processes on loopback and writes
// one JSON report (docs/security.md, "The chaos suite").
//
//   npm run chaos [-- --out FILE] [--bounded] [SCENARIO...]
//
// Runs every scenario of test/chaos/scenarios/ (or the ones named), one after another, each with a
// fresh work directory; a scenario that throws is recorded as failed, the others still run. Writes
// the report to --out (default chaos-report.json), prints a summary, and exits 1 when a check failed.
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  type ChaosScenarioReport,
  failedChecks,
  runScenarioFile,
  scenarioFiles,
  totalTallies,
} from "./run-scenario.ts";

const USAGE = "usage: npm run chaos [-- --out FILE] [--bounded] [SCENARIO...]";

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let parsed: ReturnType<
  typeof parseArgs<{
    options: { out: { type: "string" }; bounded: { type: "boolean" }; help: { type: "boolean"; short: "h" } };
    allowPositionals: true;
  }>
>;
try {
  parsed = parseArgs({
    options: { out: { type: "string" }, bounded: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
} catch (err) {
  fail((err as Error).message);
}
if (parsed.values.help) {
  process.stdout.write(
    `${USAGE}\nscenarios: ${scenarioFiles()
      .map((s) => s.name)
      .join(", ")}\n`,
  );
  process.exit(0);
}
const out = resolve(parsed.values.out ?? "chaos-report.json");
const bounded = parsed.values.bounded ?? false;
const all = scenarioFiles();
const unknown = parsed.positionals.filter((p) => !all.some((s) => s.name === p));
if (unknown.length > 0)
  fail(
    `unknown scenario ${unknown.map((u) => `"${u}"`).join(", ")}; the scenarios are: ${all.map((s) => s.name).join(", ")}`,
  );
const selected = parsed.positionals.length > 0 ? all.filter((s) => parsed.positionals.includes(s.name)) : all;

const started = new Date();
const scenarios: ChaosScenarioReport[] = [];
for (const { name, file } of selected) {
  process.stderr.write(`chaos: ${name}${bounded ? " (bounded)" : ""}\n`);
  const report = await runScenarioFile(file, { bounded, log: (m) => process.stderr.write(`  ${m}\n`) });
  scenarios.push(report);
  const t = report.tallies;
  process.stderr.write(
    `chaos: ${name} ${report.passed ? "passed" : "FAILED"} in ${(report.duration_ms / 1000).toFixed(1)} s ` +
      `(cases ${t.cases_tried}, crashes ${t.crashes}, leaks ${t.leaks}, hangs ${t.hangs}, ` +
      `breaker false-opens ${t.breaker_false_opens}, calls lost ${t.calls_lost})\n`,
  );
  for (const line of failedChecks(report)) process.stderr.write(`  FAILED ${line}\n`);
}

const failed = scenarios.filter((s) => !s.passed);
const report = {
  date: started.toISOString(),
  command: ["npm run chaos --", ...process.argv.slice(2)].join(" "),
  bounded,
  node: process.version,
  cores: availableParallelism(),
  cpu_model: cpus()[0]?.model ?? "unknown",
  passed: failed.length === 0,
  duration_ms: Date.now() - started.getTime(),
  totals: totalTallies(scenarios),
  scenarios,
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
const totals = report.totals;
process.stdout.write(
  `chaos: ${scenarios.length - failed.length}/${scenarios.length} scenarios passed; ` +
    `cases ${totals.cases_tried}, crashes ${totals.crashes}, leaks ${totals.leaks}, hangs ${totals.hangs}, ` +
    `breaker false-opens ${totals.breaker_false_opens}, calls lost ${totals.calls_lost}` +
    `${failed.length ? `; failed: ${failed.map((s) => s.name).join(", ")}` : ""}\nreport: ${out}\n`,
);
process.exit(failed.length === 0 ? 0 : 1);
