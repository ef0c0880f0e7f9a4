// `rlf judge calibrate --set FILE [--json]` as a child process: a labelled set of rule-grader items
// (no model needed) is judged and the agreement report printed — JSON with --json, text without.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { cleanEnv, ROOT } from "@rlfactory/test-support/judge-harness";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const RLF = join(ROOT, "services/cli/src/main.ts");

const eq = { type: "string_check", operation: "eq" };
/** Three labels the exact-match grader agrees with, one it does not (the last: labelled a pass). */
const SET = [
  { id: "a", mode: "rule", response: "Paris", reference: "Paris", grader: eq, label: true },
  { id: "b", mode: "rule", response: "Lyon", reference: "Paris", grader: eq, label: false },
  { id: "c", mode: "rule", response: "Rome", reference: "Rome", grader: eq, label: true },
  { id: "d", mode: "rule", response: "rome", reference: "Rome", grader: eq, label: true },
];

describe("rlf judge calibrate", () => {
  const path = join(mkdtempSync(join(tmpdir(), "rlf-calib-")), "set.jsonl");
  writeFileSync(path, `${SET.map((item) => JSON.stringify(item)).join("\n")}\n`);

  it("reports agreement with the labels as JSON", async () => {
    const { stdout } = await run(process.execPath, [RLF, "judge", "calibrate", "--set", path, "--json"], {
      cwd: ROOT,
      env: cleanEnv(),
    });
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ n: 4, judged: 4, failed: 0, pass_fail: { n: 4, accuracy: 0.75 } });
  });

  it("prints a readable report without --json, and refuses a missing --set", async () => {
    const { stdout } = await run(process.execPath, [RLF, "judge", "calibrate", "--set", path], {
      cwd: ROOT,
      env: cleanEnv(),
    });
    expect(stdout).toMatch(/accuracy/i);
    const missing = await run(process.execPath, [RLF, "judge", "calibrate"], {
      cwd: ROOT,
      env: cleanEnv(),
    }).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs --set FILE/) });
  });
});
