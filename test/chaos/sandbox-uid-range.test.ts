// The chaos `sandbox` scenario counts only its own processes: it picks a range of uids no process runs
// as, so a process of someone else's running as the environment host's default uid (62000) — or as the
// range the scenario would otherwise have taken — is neither used nor reported as a sandbox escape.
// Needs root (the sandbox's dedicated uids) and bubblewrap, like the scenario.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { stopChild, waitFor } from "@rlfactory/test-support/gateway-harness";
import { afterEach, describe, expect, it } from "vitest";
import { failedChecks, runScenarioFile, SCENARIOS_DIR } from "./run-scenario.ts";
import { FIRST_CANDIDATE, freeUidRange, uidsInUse } from "./uid-range.ts";

const asRoot = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv");
const others: ChildProcess[] = [];
afterEach(async () => {
  for (const c of others.splice(0)) await stopChild(c);
});

/** `sleep` running as `uid`, started by this test (as another user's process would be). */
async function sleeperAs(uid: number): Promise<ChildProcess> {
  const child = spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "sleep", "600"], {
    stdio: "ignore",
  });
  others.push(child);
  await waitFor(() => uidsInUse().has(uid), 10_000, `a process running as uid ${uid}`);
  return child;
}

describe("chaos sandbox scenario uids", () => {
  it("skips a range some process runs in", () => {
    expect(freeUidRange(30, new Set())).toBe(FIRST_CANDIDATE);
    expect(freeUidRange(30, new Set([FIRST_CANDIDATE + 29]))).toBe(FIRST_CANDIDATE + 30);
  });

  it.runIf(asRoot)(
    "passes with other processes running as 62000 and as its first candidate range",
    { timeout: 240_000 },
    async () => {
      await sleeperAs(62_000);
      await sleeperAs(FIRST_CANDIDATE);
      expect(freeUidRange(30)).toBeGreaterThanOrEqual(FIRST_CANDIDATE + 30);
      const report = await runScenarioFile(join(SCENARIOS_DIR, "sandbox.ts"), { bounded: true });
      expect(failedChecks(report).join("\n"), JSON.stringify(report.tallies)).toBe("");
      // Both are still running: the scenario neither used nor killed them.
      expect(others.every((c) => c.exitCode === null)).toBe(true);
    },
  );
});
