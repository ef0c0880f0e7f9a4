// The benchmark command runs end to end and writes the report shape docs/benchmarks.md describes.
// A smoke test of the harness only: no figure is asserted (speed claims live in the report).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { bfclPackageDir } from "@rlfactory/environments";
import { ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import { haveSharedData } from "@rlfactory/test-support/shared-data";
import { describe, expect, it } from "vitest";
import { SERVICE_NODE_FLAGS } from "./service-node-flags.ts";

const run = promisify(execFile);

describe("npm run bench -- gateway", () => {
  it("writes throughput, p50 and p99 for every scenario at concurrency 1 and 64, and both ratios", async () => {
    const out = join(tempDir(), "bench.json");
    await run("npm", ["run", "-s", "bench", "--", "gateway", "--out", out, "--requests", "300"], {
      cwd: ROOT,
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    for (const name of ["raw_grpc", "gateway_cached", "direct_mcp", "gateway_uncached"]) {
      for (const c of ["c1", "c64"]) {
        const s = report.scenarios[name][c];
        expect(s, `${name}.${c}`).toMatchObject({ errors: 0, concurrency: c === "c1" ? 1 : 64 });
        expect(s.throughput_per_s).toBeGreaterThan(0);
        expect(s.p99_ms).toBeGreaterThanOrEqual(s.p50_ms);
      }
    }
    expect(typeof report.ratios.cached_vs_raw_grpc).toBe("number");
    expect(typeof report.ratios.uncached_vs_direct_mcp).toBe("number");
  });
});

describe.skipIf(
  !haveSharedData("npm run bench -- cli-startup", "hotpotqa/hotpot_dev_distractor_first100_hf.json"),
)("npm run bench -- cli-startup", () => {
  it("runs every command to its exit code and reports CPU, CPU before connecting and modules", async () => {
    const out = join(tempDir(), "cli-startup.json");
    await run("npm", ["run", "-s", "bench", "--", "cli-startup", "--out", out, "--runs", "1"], {
      cwd: ROOT,
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    const exits = {
      help: 0,
      tools_list_unreachable: 1,
      tools_list_live: 0,
      data_hotpotqa: 0,
      tool_calculator_help: 0,
    };
    for (const [name, code] of Object.entries(exits)) {
      const c = report.commands[name];
      expect(c.exit_codes, name).toEqual([code]);
      expect(c.cpu_ms_runs, name).toHaveLength(1);
      expect(c.modules_loaded, name).toBeGreaterThan(0);
    }
    expect(report.commands.tools_list_live.cpu_ms_before_connect_median).toBeGreaterThan(0);
    expect(report.commands.help.cpu_ms_before_connect_median).toBeUndefined();
  });
});

describe("npm run bench -- rollout", () => {
  it("runs every trajectory of the async and lockstep runs to the end, replays exactly, and writes the ratios", async () => {
    const out = join(tempDir(), "rollout.json");
    // a tiny workload: 16 tasks, 8 in flight, 2 tool turns, millisecond latencies
    const args = ["--tasks", "16", "--concurrency", "8", "--turns", "2", "--turn-ms", "5-15"];
    const small = ["--tool-median-ms", "2", "--tool-slow-ms", "20", "--parallel-tasks", "4"];
    const once = ["--batch-repeats", "1", "--replays", "1"];
    await run("npm", ["run", "-s", "bench", "--", "rollout", "--out", out, ...args, ...small, ...once], {
      cwd: ROOT,
      timeout: 60_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.parameters).toMatchObject({ tasks: 16, in_flight: 8, tool_turns: 2 });
    for (const name of ["async", "lockstep"]) {
      expect(report.runs[name], name).toMatchObject({ trajectories: 16, statuses: { completed: 16 } });
      expect(report.runs[name].trajectories_per_s).toBeGreaterThan(0);
    }
    expect(report.runs.lockstep.batch_walls_ms).toHaveLength(2);
    // the critical path replayed alone met the same generation and tool latencies as in the batch
    expect(report.runs.critical_path.replay_exact).toBe(true);
    // 4 tasks × 2 tool turns, each turn one CallTools of 8 calls
    expect(report.runs.parallel_calls).toMatchObject({ trajectories: 4, tool_turns: 8 });
    for (const ratio of [
      "async_vs_lockstep",
      "single_batch_async_vs_lockstep",
      "wall_vs_critical_path",
      "parallel_calls_wall_vs_slowest",
    ]) {
      expect(report.ratios[ratio], ratio).toBeGreaterThan(0);
    }
  });
});

describe("npm run bench -- engine-turn", () => {
  it("runs every cell of the grid to the end, lockstep and async, and writes engine CPU per sampled turn", async () => {
    const out = join(tempDir(), "engine-turn.json");
    const grid = ["--in-flight", "4,8", "--turns", "2,3", "--modes", "lockstep,async", "--tasks", "8"];
    await run("npm", ["run", "-s", "bench", "--", "engine-turn", "--out", out, ...grid], {
      cwd: ROOT,
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    // 2 turn counts × 2 in flight × 2 modes, each cell --tasks tasks (two rounds of 4, one of 8), every turn sampled
    expect(report.cells).toHaveLength(8);
    for (const cell of report.cells) {
      expect(cell.tasks, JSON.stringify(cell)).toBe(8);
      expect(cell.sampled_turns, JSON.stringify(cell)).toBe(cell.tasks * cell.turns);
      expect(cell.engine_cpu_ms_per_turn).toBeGreaterThan(0);
      expect(cell.reference_job.runs, JSON.stringify(cell)).toBeGreaterThanOrEqual(1);
      expect(cell.reference_job.median_us, JSON.stringify(cell)).toBeGreaterThan(0);
      expect(cell.reference_job.memory_median_us, JSON.stringify(cell)).toBeGreaterThan(0);
      // each process's main thread's context switches per turn: each waited on another at least once
      const stack = cell.stack_thread_switches_per_turn;
      if (process.platform === "linux") {
        for (const switches of [cell.engine_thread_switches_per_turn, ...Object.values(stack)]) {
          expect(switches.voluntary, JSON.stringify(cell)).toBeGreaterThan(0);
          expect(switches.involuntary, JSON.stringify(cell)).toBeGreaterThanOrEqual(0);
        }
        expect(Object.keys(stack).sort()).toEqual(["gateway", "simulated_model", "tool_server"]);
        // every process reads and writes its sockets on every turn
        const syscalls = cell.syscalls_per_turn;
        expect(Object.keys(syscalls).sort()).toEqual(["engine", "gateway", "simulated_model", "tool_server"]);
        for (const counted of Object.values(syscalls) as { read: number; write: number }[]) {
          expect(counted.read, JSON.stringify(cell)).toBeGreaterThan(0);
          expect(counted.write, JSON.stringify(cell)).toBeGreaterThan(0);
        }
      } else expect(cell.engine_thread_switches_per_turn).toBeNull();
    }
    // one warm-up cell per turn count and mode, --tasks tasks at min(64, largest in flight), reported apart
    expect(
      report.warm_up.map((c: { turns: number; mode: string; in_flight: number; tasks: number }) => [
        c.turns,
        c.mode,
        c.in_flight,
        c.tasks,
      ]),
    ).toEqual([
      [2, "lockstep", 8, 8],
      [2, "async", 8, 8],
      [3, "lockstep", 8, 8],
      [3, "async", 8, 8],
    ]);
    expect(report.async_vs_lockstep).toHaveLength(4);
    for (const ratio of report.async_vs_lockstep) {
      expect(ratio.async_vs_lockstep_reference_job).toBeGreaterThan(0);
      expect(ratio.async_vs_lockstep_reference_memory).toBeGreaterThan(0);
    }
    // per (in flight, mode): a trajectory's engine CPU as a line in its turns, over turns 2 and 3
    expect(report.per_turn_fit).toHaveLength(4);
    for (const fit of report.per_turn_fit) {
      expect(fit.turns).toEqual([2, 3]);
      expect(Number.isFinite(fit.ms_per_turn) && Number.isFinite(fit.ms_per_trajectory)).toBe(true);
    }
    // started without them, the bench ran its engine again with the rollout service's Node flags
    expect(report.parameters.engine_node_flags).toEqual([...SERVICE_NODE_FLAGS]);
  }, 150_000);
});

describe("npm run bench -- agent-capture", () => {
  it("runs the same sessions directly and through the capture endpoint, the same tokens both ways, and writes the overhead", async () => {
    const out = join(tempDir(), "agent-capture.json");
    const small = ["--sessions", "8", "--concurrency", "4", "--rounds", "2", "--tokens-per-s", "1000"];
    await run("npm", ["run", "-s", "bench", "--", "agent-capture", "--out", out, ...small], {
      cwd: ROOT,
      timeout: 60_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.rounds).toHaveLength(2);
    for (const round of report.rounds) {
      // a search call and the answer per session: 16 requests each way, the same tokens generated
      expect(round.direct).toMatchObject({ sessions: 8, requests: 16 });
      expect(round.capture).toMatchObject({ sessions: 8, requests: 16 });
      expect(round.capture.completion_tokens).toBe(round.direct.completion_tokens);
      // each process's CPU: the agent's both ways; the capture endpoint's when the agent goes through it
      expect(round.direct.cpu_ms_per_request.agent).toBeGreaterThan(0);
      expect(round.capture.cpu_ms_per_request.agent).toBeGreaterThan(0);
      expect(round.capture.cpu_ms_per_request.capture_endpoint).toBeGreaterThan(0);
      expect(round.capture.cpu_ms_per_request.all).toBeGreaterThan(
        round.capture.cpu_ms_per_request.capture_endpoint,
      );
    }
    expect(typeof report.ratios.capture_overhead).toBe("number");
    expect(typeof report.ratios.capture_overhead_median).toBe("number");
    expect(report.ratios.capture_endpoint_cpu_ms_per_request).toBeGreaterThan(0);
    expect(typeof report.ratios.capture_cpu_ms_per_request_added).toBe("number");
  });
});

describe.skipIf(!haveBfclVenv())("npm run bench -- episodes", () => {
  it("runs every episode's calls without an error and writes episodes/s three ways, the fork of 16, memory and the gRPC floor", async () => {
    const out = join(tempDir(), "episodes.json");
    const small = ["--episodes", "64", "--forks", "5", "--live", "32", "--workers", "1"];
    await run("npm", ["run", "-s", "bench", "--", "episodes", "--out", out, ...small], {
      cwd: ROOT,
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.call_errors).toBe(0);
    for (const name of ["gateway", "gateway_batched", "direct_mcp"]) {
      expect(report.episodes_per_s[name].c64, name).toMatchObject({
        errors: 0,
        concurrency: 64,
        requests: 64,
      });
      expect(report.episodes_per_s[name].c1, name).toMatchObject({ errors: 0, concurrency: 1 });
    }
    expect(report.fork_16.runs).toBe(5);
    expect(report.memory.live_episodes).toBe(32);
    expect(typeof report.memory.kib_per_live_episode).toBe("number");
    expect(report.grpc_floor).toMatchObject({ rpcs_per_episode: 13 });
    expect(report.grpc_floor.calls_per_s_c64).toBeGreaterThan(0);
  });
});

/** The episodes bench serves BFCL from the environments venv (`npm run setup:environments`). */
function haveBfclVenv(): boolean {
  if (bfclPackageDir() !== undefined) return true;
  if (process.env.CI) throw new Error("the episodes bench needs npm run setup:environments");
  console.warn("skipping the episodes bench: run npm run setup:environments");
  return false;
}

describe("npm run bench -- search", () => {
  it("builds in a child process, reuses the corpus and index of the same --dir, and reports build, queries and /retrieve", async () => {
    const dir = tempDir();
    const bench = async (out: string, ...more: string[]) => {
      const args = ["run", "-s", "bench", "--", "search", "--out", out, "--passages", "3000", ...more];
      const { stderr } = await run("npm", [...args, "--queries", "40", "--dir", dir], {
        cwd: ROOT,
        timeout: 180_000,
      });
      return { report: JSON.parse(readFileSync(out, "utf8")), stderr };
    };
    const first = await bench(join(dir, "first.json"));
    expect(first.stderr).toContain("corpus: 3000 passages");
    expect(first.report.corpus.passages).toBe(3000);
    expect(first.report.build).toMatchObject({ segments: 1 });
    expect(first.report.build.peak_rss_mb).toBeGreaterThan(0);
    expect(first.report.build.on_disk_mb).toBeGreaterThan(0);
    expect(first.report.open_in_process.seconds).toBeGreaterThanOrEqual(0);
    expect(first.report.search_cpu.exhaustive_queries).toBe(40);
    expect(first.report.retrieve_http.c1.errors).toBe(0);
    expect(first.report.retrieve_http.c16.errors).toBe(0);
    // Lucene runs where Java and its jars are; otherwise the report says why it did not.
    if ("skipped" in first.report.lucene) expect(first.report.lucene.skipped).toMatch(/java|jars/);
    else expect(first.report.lucene.top10_compared).toBe(40);

    const second = await bench(join(dir, "second.json"), "--reuse-index");
    expect(second.stderr).toContain("corpus: reusing");
    expect(second.stderr).toContain("build: reusing");
    expect(second.report.build.reused).toBe(true);
    expect(second.report.search_cpu.exhaustive_queries).toBe(40);
    expect(second.report.corpus.bytes).toBe(first.report.corpus.bytes);
    expect(second.report.index).toEqual(first.report.index);
  }, 400_000);
});
