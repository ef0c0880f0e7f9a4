// Every chaos scenario in its bounded form (test/chaos/scenarios/, each file joins automatically):
// every check the scenario makes must pass; the failing checks' details are the failure message.
import { describe, expect, it } from "vitest";
import { failedChecks, runScenarioFile, scenarioFiles } from "./run-scenario.ts";

describe.each(scenarioFiles())("chaos scenario $name (bounded)", ({ file }) => {
  it("passes every check", { timeout: 120_000 }, async () => {
    const report = await runScenarioFile(file, { bounded: true });
    expect(report.checks.length, "the scenario made no checks").toBeGreaterThan(0);
    expect(failedChecks(report).join("\n"), JSON.stringify(report.tallies)).toBe("");
  });
});
