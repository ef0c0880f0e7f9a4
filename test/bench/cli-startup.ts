// Benchmark of `rlf`'s start-up (JSON output; never timing asserts in tests): the CPU (user + system)
// each command spends, and for `rlf tools list` the CPU spent before it first connects, measured in
// the child by the module-load probe (test/support/src/module-load-probe.ts), median of --runs runs.
//
//   npm run bench -- cli-startup --out FILE.json [--runs 5] [--hotpotqa FILE]
//
// Commands: `rlf --help`; `rlf tools list` against an unreachable gateway (127.0.0.1:1) and against a
// live one (a gateway in this process over the testbed tool server); `rlf data hotpotqa` on --hotpotqa
// (default: the shared HotpotQA sample the tests use, 991 passages); `rlf tool calculator --help`.
// The machine's load average is recorded beside the figures: CPU time grows when other work shares it.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { startTestGateway, testbedStdio } from "@rlfactory/test-support/gateway-harness";
import { sharedDataPath } from "@rlfactory/test-support/shared-data";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RLF = join(ROOT, "services/cli/bin/rlf.js");
const PROBE = import.meta.resolve("@rlfactory/test-support/module-load-probe");
const HOTPOTQA = "hotpotqa/hotpot_dev_distractor_first100_hf.json";
const run = promisify(execFile);

export interface CliStartupOptions {
  runs: number;
  hotpotqa: string;
}

export function cliStartupBenchArgs(argv: string[]): { out: string; options: CliStartupOptions } {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string", default: "bench-cli-startup.json" },
      runs: { type: "string", default: "5" },
      hotpotqa: { type: "string" },
    },
  });
  return {
    out: values.out,
    options: { runs: Number(values.runs), hotpotqa: values.hotpotqa ?? sharedDataPath(HOTPOTQA) },
  };
}

interface Sample {
  cpu_ms: number;
  first_connect_cpu_ms: number | null;
  modules: number;
  exit_code: number;
}

async function sample(args: string[], dir: string): Promise<Sample> {
  const out = join(dir, "probe.json");
  let exitCode = 0;
  try {
    await run(process.execPath, ["--import", PROBE, RLF, ...args], {
      env: { ...process.env, RLF_LOAD_PROBE_OUT: out },
    });
  } catch (err) {
    exitCode = (err as { code: number }).code;
  }
  const probe = JSON.parse(readFileSync(out, "utf8")) as {
    cpu_ms: number;
    first_connect_cpu_ms: number | null;
    modules: string[];
  };
  return {
    cpu_ms: probe.cpu_ms,
    first_connect_cpu_ms: probe.first_connect_cpu_ms,
    modules: probe.modules.length,
    exit_code: exitCode,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor((s.length - 1) / 2)] ?? Number.NaN);
};

export async function benchCliStartup(out: string, options: CliStartupOptions): Promise<void> {
  if (!existsSync(options.hotpotqa))
    throw new Error(`no HotpotQA file at ${options.hotpotqa} (--hotpotqa FILE)`);
  const dir = mkdtempSync(join(tmpdir(), "rlf-bench-cli-"));
  const live = await startTestGateway({ servers: { testbed: testbedStdio() } });
  try {
    const commands: Record<string, string[]> = {
      help: ["--help"],
      tools_list_unreachable: ["tools", "list", "--gateway", "127.0.0.1:1"],
      tools_list_live: ["tools", "list", "--gateway", live.gateway.grpcAddress],
      data_hotpotqa: ["data", "hotpotqa", "--in", options.hotpotqa, "--out", join(dir, "corpus.jsonl")],
      tool_calculator_help: ["tool", "calculator", "--help"],
    };
    const results: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(commands)) {
      const samples: Sample[] = [];
      for (let i = 0; i < options.runs; i++) samples.push(await sample(args, dir));
      const connects = samples.flatMap((s) =>
        s.first_connect_cpu_ms === null ? [] : [s.first_connect_cpu_ms],
      );
      results[name] = {
        command: `rlf ${args.join(" ")}`,
        cpu_ms_median: median(samples.map((s) => s.cpu_ms)),
        cpu_ms_runs: samples.map((s) => Math.round(s.cpu_ms)),
        ...(connects.length > 0 ? { cpu_ms_before_connect_median: median(connects) } : {}),
        modules_loaded: samples[0]?.modules,
        exit_codes: [...new Set(samples.map((s) => s.exit_code))],
      };
      process.stderr.write(`${name.padEnd(24)} ${JSON.stringify(results[name])}\n`);
    }
    const report = {
      runs: options.runs,
      load_average: loadavg().map((l) => Math.round(l * 100) / 100),
      commands: results,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`written to ${out}\n`);
  } finally {
    await live.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
