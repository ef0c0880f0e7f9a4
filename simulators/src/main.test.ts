// `rlf-sim` as a process: the help of the command and of each subcommand (exit 0, each saying it is
// simulated), a usage error (exit 2), and the old `rlf simulate-*` commands pointing here.
import { spawnSync } from "node:child_process";
import { RLF, RLF_SIM, ROOT } from "@rlfactory/test-support/gateway-harness";
import { describe, expect, it } from "vitest";
import { SIMULATE_FACTORY_USAGE } from "./factory/command.ts";
import { SIMULATE_LLM_USAGE } from "./llm/command.ts";
import { SIM_USAGE } from "./main.ts";

const run = (program: string, args: string[]) =>
  spawnSync(process.execPath, [program, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });

describe("rlf-sim", () => {
  it.each([
    { args: ["--help"], usage: SIM_USAGE },
    { args: ["-h"], usage: SIM_USAGE },
    { args: ["llm", "--help"], usage: SIMULATE_LLM_USAGE },
    { args: ["factory", "--help"], usage: SIMULATE_FACTORY_USAGE },
  ])("rlf-sim $args prints its usage and exits 0", ({ args, usage }) => {
    const res = run(RLF_SIM, args);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe(usage);
    expect(res.stdout).toMatch(/SIMULATED/);
    expect(res.stdout).toMatch(/not (a model|models)/);
  });

  it("refuses an unknown subcommand with exit 2, naming it", () => {
    const res = run(RLF_SIM, ["vllm"]);
    expect(res.status).toBe(2);
    expect(res.stderr.split("\n")[0]).toBe('rlf-sim: unknown command "vllm"');
  });

  it.each([
    ["simulate-llm", "llm"],
    ["simulate-factory", "factory"],
  ])("rlf %s answers one line pointing to rlf-sim %s, exit 2", (old, now) => {
    const res = run(RLF, [old, "--port", "0"]);
    expect(res.status).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(`rlf: ${old} moved to the simulators package: run rlf-sim ${now}\n`);
  });
});
