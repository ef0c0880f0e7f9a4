// One source of help: every command and subcommand of the table (commands.ts) answers --help and -h
// through the real `rlf` binary with exit 0, printing the usage and summary the main usage shows for
// it; `rlf tool NAME --help` adds that server's own flags.
import { execFile } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BUNDLED_TOOL_SERVER_NAMES, toolServers } from "@rlfactory/tools/tool-servers";
import { describe, expect, it } from "vitest";
import { allCommands } from "./help.ts";

const RLF = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "bin/rlf.js");
const run = promisify(execFile);

async function rlf(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RLF, ...args], { encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs `jobs` two at a time (each is a Node process). */
async function pairwise<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2)
    results.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return results;
}

const commands = allCommands();

describe("rlf help", () => {
  it("the main usage lists every command and subcommand of the table with its summary", async () => {
    const main = await rlf("--help");
    expect(main.code).toBe(0);
    expect(commands.length).toBeGreaterThan(20);
    for (const { command } of commands) {
      expect(main.stdout).toContain(`  rlf ${command.usage}\n      ${command.summary}\n`);
    }
  });

  // --help on every command and subcommand, -h on the top-level ones (the same code path decides both).
  it("rlf CMD [SUB] --help (and rlf CMD -h) prints that command's usage and summary and exits 0", async () => {
    const cases = commands.flatMap(({ command, path }) =>
      (path.length === 1 ? ["--help", "-h"] : ["--help"]).map((flag) => ({ command, path, flag })),
    );
    const runs = await pairwise(
      cases.map((c) => async () => ({ ...c, result: await rlf(...c.path, c.flag) })),
    );
    expect(runs.length).toBe(cases.length);
    for (const { command, path, flag, result } of runs) {
      const what = `rlf ${path.join(" ")} ${flag}`;
      expect(result.code, what).toBe(0);
      expect(result.stderr, what).toBe("");
      expect(result.stdout.startsWith(`rlf ${command.usage}\n\n${command.summary}\n`), what).toBe(true);
      for (const sub of command.subcommands ?? []) expect(result.stdout, what).toContain(sub.summary);
    }
  }, 180_000);

  it("help wins wherever it stands among a command's flags, but not after --", async () => {
    const late = await rlf("data", "bfcl", "--in", "x.json", "--help");
    expect(late.code).toBe(0);
    expect(late.stdout).toContain("BFCL multi-turn entries as rollout tasks");
    const passedOn = await rlf("model", "serve", "--", "--help");
    expect(passedOn.code).toBe(2);
    expect(passedOn.stderr).toContain("rlf model serve needs one model directory");
  });

  it("rlf tool NAME --help shows that server's summary and flags, for every bundled server", async () => {
    const runs = await pairwise(
      BUNDLED_TOOL_SERVER_NAMES.map((name) => async () => ({
        name,
        result: await rlf("tool", name, "--help"),
      })),
    );
    for (const { name, result } of runs) {
      expect(result.code, name).toBe(0);
      expect(result.stdout, name).toContain(`rlf tool ${name} ${toolServers[name].usage}`);
      expect(result.stdout, name).toContain(toolServers[name].summary);
    }
  }, 60_000);

  it("a group without its subcommand, or an unknown one, is a usage error printed with the group's help", async () => {
    const result = await rlf("env", "nonsense");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'rlf env needs one of python, openenv, verifiers, bfcl, gym, textarena, serve, import-ftrl, build (got "nonsense")',
    );
    expect(result.stderr).toContain("rlf env build --config FILE --out DIR");
  });
});
