// The contract across languages: trajectories built in TypeScript go TS → JSONL → Python
// (`rlfactory_engines.records.Trajectory.from_json` → `to_json`) → JSONL → TS and come back field for
// field, as JSON and as validated records. Runs the engines' venv (`npm run setup:engines`); without
// it the test is skipped with a warning, except under CI, where the venv is always made and its
// absence fails.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { appendTrajectoriesJsonl, readTrajectoriesJsonl } from "@rlfactory/rollout";
import { contractTrajectories } from "@rlfactory/test-support/contract-trajectories";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENGINES = fileURLToPath(new URL("../../services/engines", import.meta.url));
const PYTHON = process.env.RLF_ENGINES_PYTHON ?? join(ENGINES, ".venv/bin/python");
const SCRIPT = fileURLToPath(new URL("./trajectory_roundtrip.py", import.meta.url));
const HAVE_PYTHON = existsSync(PYTHON);
const UNDER_CI = process.env.CI === "true";
if (!HAVE_PYTHON && !UNDER_CI)
  console.warn(
    `skipping: no Python environment for the engine adapters at ${PYTHON} (npm run setup:engines)`,
  );

describe.skipIf(!HAVE_PYTHON && !UNDER_CI)("trajectories TS → JSONL → Python → JSONL → TS", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "contract-jsonl-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("come back field for field", async () => {
    expect(HAVE_PYTHON, `CI makes the engines' venv: ${PYTHON} is missing`).toBe(true);
    const cases = contractTrajectories();
    const sent = join(dir, "sent.jsonl");
    const back = join(dir, "back.jsonl");
    await appendTrajectoriesJsonl(sent, cases);
    // this checkout's rlfactory_engines, whatever the venv has installed
    await promisify(execFile)(PYTHON, [SCRIPT, sent, back], {
      env: { ...process.env, PYTHONPATH: ENGINES },
    });

    const lines = async (path: string) =>
      (await readFile(path, "utf8"))
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as unknown);
    // the JSON itself (no key added or dropped: the reader's validation would strip an unknown key) ...
    expect(await lines(back)).toStrictEqual(await lines(sent));
    // ... and the records, validated by the contract's schema
    expect(await readTrajectoriesJsonl(back)).toStrictEqual(cases);
  });
});
