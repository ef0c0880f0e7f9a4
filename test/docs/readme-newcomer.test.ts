// The README as a newcomer runs it: every rlf command with options is written `npx rlf …` (what works
// from a clone without a global install), each `rlf model import` line passes the CLI's own argument
// checks, and grpcurl, which the project does not install through npm, comes with a word on how to get it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { RLF, ROOT } from "@rlfactory/test-support/gateway-harness";
import { codeSpans, readDoc } from "@rlfactory/test-support/markdown";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const readme = readDoc("README.md");

/** Every command the README writes: lines of its sh blocks and inline code spans. */
function commands(): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? "").split("\n"));
  const prose = readme.replace(/```[\s\S]*?```/g, "");
  return [...blocks, ...codeSpans(prose)].map((l) => l.trim()).filter(Boolean);
}

describe("README for a newcomer", () => {
  it("writes every rlf command that takes options as npx rlf", () => {
    const withOptions = commands().filter((c) => /^(npx )?rlf [a-z]/.test(c) && /\s--?[a-z]/.test(c));
    expect(withOptions.length).toBeGreaterThan(10);
    expect(withOptions.filter((c) => !c.startsWith("npx rlf "))).toEqual([]);
  });

  it("shows rlf model import with the options it needs", async () => {
    const imports = commands().filter((c) => /^(npx )?rlf model import/.test(c));
    expect(imports.length).toBeGreaterThan(0);
    for (const line of imports) {
      const args = line.replace(/^(npx )?rlf /, "").split(/\s+/);
      // No engines venv here: a command that passes the argument checks stops at that (exit 1),
      // a usage error exits 2.
      const result = await run(process.execPath, [RLF, ...args], {
        cwd: ROOT,
        timeout: 30_000,
        env: { ...process.env, RLF_ENGINES_PYTHON: "/nonexistent/python" },
      }).then(
        () => ({ code: 0, stderr: "" }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect({ line, ...result }).toMatchObject({ code: 1 });
      expect(result.stderr).toContain("no Python environment for the engines");
    }
  });

  it("says how to get grpcurl before its first use", () => {
    const firstUse = readme.indexOf("grpcurl -plaintext");
    expect(firstUse).toBeGreaterThan(0);
    const block = readme.lastIndexOf("```sh", firstUse);
    const intro = readme.slice(readme.lastIndexOf("```\n", block - 1), block);
    expect(intro).toMatch(/go install github\.com\/fullstorydev\/grpcurl\/cmd\/grpcurl@/);
  });
});
