// The chaos runner's own behaviour, on throw-away scenario files: a scenario that throws is a failed
// scenario with one crash (never the runner's crash), a misnamed one is refused, tallies add up, and
// `npm run chaos` refuses an unknown scenario name with the list of names.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "@rlfactory/test-support/gateway-harness";
import { describe, expect, it } from "vitest";
import { failedChecks, runScenarioFile, scenarioFiles, totalTallies } from "./run-scenario.ts";

const SCENARIO_TS = join(ROOT, "test/chaos/scenario.ts");

function scenarioDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "rlf-chaos-runner-"));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, `${name}.ts`), body);
  return dir;
}

const scenario = (name: string, run: string) => `
import { check, emptyTallies } from ${JSON.stringify(SCENARIO_TS)};
export default { name: ${JSON.stringify(name)}, description: "d", async run(ctx) { ${run} } };
`;

describe("the chaos runner", () => {
  const dir = scenarioDir({
    passes: scenario(
      "passes",
      `const t = emptyTallies(); t.cases_tried = 3; t.calls_lost = 1;
       return { tallies: t, checks: [check("holds", true, "seen")], figures: { x_ms: 1, dir: ctx.workDir !== "" } };`,
    ),
    throws: scenario("throws", `throw new Error("boom");`),
    fails: scenario(
      "fails",
      `const t = emptyTallies(); t.cases_tried = 2; t.sandbox_probes_tried = 4;
       return { tallies: t, checks: [check("holds", true, ""), check("breaks", false, "2 lost")], figures: {} };`,
    ),
    misnamed: scenario("other", "return { tallies: emptyTallies(), checks: [], figures: {} };"),
  });

  it("lists the scenario files by name", () => {
    expect(scenarioFiles(dir).map((s) => s.name)).toEqual(["fails", "misnamed", "passes", "throws"]);
  });

  it("records each scenario's outcome; a throwing or misnamed one is a failed scenario with a crash", async () => {
    const reports = await Promise.all(
      scenarioFiles(dir).map((s) => runScenarioFile(s.file, { bounded: true })),
    );
    const byName = Object.fromEntries(reports.map((r) => [r.name, r]));
    expect(byName.passes).toMatchObject({ passed: true, figures: { x_ms: 1, dir: true } });
    expect(byName.fails?.passed).toBe(false);
    expect(failedChecks(byName.fails!)).toEqual(["fails: breaks — 2 lost"]);
    for (const name of ["throws", "misnamed"]) {
      expect(byName[name]?.passed).toBe(false);
      expect(byName[name]?.tallies.crashes).toBe(1);
    }
    expect(byName.throws?.checks[0]?.detail).toContain("boom");
    expect(byName.misnamed?.checks[0]?.detail).toContain('named "other"');
    expect(totalTallies(reports)).toMatchObject({
      cases_tried: 5,
      calls_lost: 1,
      crashes: 2,
      sandbox_probes_tried: 4,
    });
  });

  it("npm run chaos refuses an unknown scenario, listing the names", async () => {
    const run = promisify(execFile);
    const failure = await run(process.execPath, [join(ROOT, "test/chaos/main.ts"), "no-such-scenario"], {
      cwd: ROOT,
    }).catch((err: { code: number; stderr: string }) => err);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(
      /unknown scenario "no-such-scenario"; the scenarios are: .*\bbreaker\b.*\btool-memory\b/,
    );
  });
});
