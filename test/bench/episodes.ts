// `npm run bench -- episodes --out FILE.json [--episodes N] [--forks N] [--live N] [--workers N]
//  [--protocol auto|legacy]`:
// stateful episodes through the gateway, on BFCL's GorillaFileSystem served by `rlf env bfcl --stdio`
// (the gateway, in its own process, spawns it):
//   episodes_per_s   start + 10 calls + snapshot + end, at concurrency 1 and 64, three ways:
//                    gateway (one CallTool per call), gateway_batched (the 10 calls in one CallTools,
//                    which the gateway sends the environment server as one episode_batch request),
//                    direct_mcp (an MCP client on `rlf env bfcl --stdio`, no gateway: the floor the
//                    gateway adds to)
//   fork_16_ms       ForkEpisode of one episode into 16 (p50 / p99 / mean over --forks runs)
//   memory           resident memory of the environment server's process tree per live episode
//                    (--live episodes held at once, against the tree after one episode; measured
//                    first, before the throughput runs have grown the heaps)
//   cpu_ms_per_episode_{via_gateway,via_gateway_batched,direct_mcp}
//                    CPU (user + system) per episode, per process, over the runs at 64 in flight
//   grpc_floor       a raw grpc-js unary echo (no gateway, no environment) at 64 in flight, and the
//                    CPU per call on each side: an episode through the gateway is 13 unary RPCs
//   bound            the CPU an episode through the gateway cannot go below on this machine (its 13
//                    gRPC round trips at the echo's cost + the direct MCP episode), against what it
//                    costs, and the episodes/s that floor allows with every core busy

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  credentials,
  type GrpcObject,
  loadPackageDefinition,
  type ServiceClientConstructor,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { GatewayClient } from "@rlfactory/clients";
import { nearestRankPercentile } from "@rlfactory/kit";
import { descendantsOf } from "@rlfactory/test-support/process-tree";
import { measure } from "./measure.ts";
import { SERVICE_NODE_FLAGS } from "./service-node-flags.ts";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const RLF = join(ROOT, "services/cli/src/main.ts");

export const EPISODES_BENCH_USAGE =
  "npm run bench -- episodes --out FILE.json [--episodes N] [--forks N] [--live N] [--workers N] [--protocol auto|legacy]";

export interface EpisodesBenchOptions {
  /** Episodes at concurrency 64 (a quarter of it, at least 50, at concurrency 1). */
  episodes: number;
  /** Forks of 16 measured. */
  forks: number;
  /** Episodes held live for the memory figure. */
  live: number;
  /** Python workers of the environment server (default: its own, the number of CPUs). */
  workers?: number;
  /**
   * MCP protocol era between the gateway (and the direct client) and the environment server: "auto"
   * (the default: 2026-07-28 when offered) or "legacy" (the 2025-11-25 handshake).
   */
  protocol?: "auto" | "legacy";
}

const CONFIG = {
  involved_classes: ["GorillaFileSystem"],
  initial_config: {
    GorillaFileSystem: {
      root: {
        workspace: {
          type: "directory",
          contents: {
            document: {
              type: "directory",
              contents: {
                "report.txt": { type: "file", content: "Year2024 budget analysis\nsecond line" },
              },
            },
            archive: { type: "directory", contents: {} },
          },
        },
      },
    },
  },
};

/** The ten calls of one episode. */
const CALLS: [tool: string, args: Record<string, unknown>][] = [
  ["pwd", {}],
  ["ls", {}],
  ["cd", { folder: "document" }],
  ["cat", { file_name: "report.txt" }],
  ["touch", { file_name: "notes.txt" }],
  ["echo", { content: "hello world", file_name: "notes.txt" }],
  ["wc", { file_name: "notes.txt", mode: "w" }],
  ["mkdir", { dir_name: "drafts" }],
  ["mv", { source: "notes.txt", destination: "drafts" }],
  ["ls", { a: true }],
];

const round = (x: number) => Math.round(x * 100) / 100;

function waitForLine(child: ChildProcess, pick: (rec: Record<string, unknown>) => boolean) {
  return new Promise<Record<string, unknown>>((resolvePromise, reject) => {
    child.once("exit", (code) => reject(new Error(`the gateway exited with ${code}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        if (pick(rec)) resolvePromise(rec);
      } catch {
        // not JSON
      }
    });
  });
}

/** `pid` and all its descendants. */
function processTree(pid: number): number[] {
  return descendantsOf(pid, { includeSelf: true });
}

/** Resident KiB of `pid` and all its descendants. */
function treeRssKiB(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
      total += Number(m?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU milliseconds (user + system) the processes have used so far (clock ticks of 10 ms). */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const p of pids) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10;
}

export async function benchEpisodes(out: string, options: EpisodesBenchOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "rlf-bench-episodes-"));
  const config = join(dir, "gateway.json");
  const envArgs = [
    ...SERVICE_NODE_FLAGS,
    RLF,
    "env",
    "bfcl",
    "--stdio",
    ...(options.workers ? ["--workers", String(options.workers)] : []),
  ];
  const limit = Math.max(1_024, options.live + 64);
  writeFileSync(
    config,
    JSON.stringify({
      grpc: { port: 0 },
      admin: { port: 0 },
      servers: {
        bfcl: {
          command: process.execPath,
          args: [...envArgs, "--max-episodes", String(limit + 32)],
          policy: { episodes: { max_live: limit } },
          ...(options.protocol ? { protocol: options.protocol } : {}),
        },
      },
    }),
  );
  const gateway = spawn(process.execPath, [...SERVICE_NODE_FLAGS, RLF, "gateway", "--config", config], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "info" },
  });
  try {
    const ready = await waitForLine(gateway, (r) => r.msg === "gateway listening");
    const client = new GatewayClient(String(ready.grpc));
    let callErrors = 0;
    const episode = async (): Promise<boolean> => {
      const id = await client.startEpisode("bfcl", CONFIG);
      for (const [tool, args] of CALLS) {
        const r = await client.callTool({
          name: `bfcl__${tool}`,
          arguments_json: JSON.stringify(args),
          episode_id: id,
        });
        if (r.error_code !== "OK") callErrors++;
      }
      await client.snapshotEpisode(id);
      const final = (await client.endEpisode(id)) as Record<string, unknown>;
      return "GorillaFileSystem" in final;
    };
    // Memory first, before any load has grown the heaps: the server's process tree (node + Python
    // workers) after one episode, then with `live` live.
    await episode();
    const serverPid = (await import("node:child_process"))
      .execFileSync("ps", ["-o", "pid=", "--ppid", String(gateway.pid)], { encoding: "utf8" })
      .trim()
      .split(/\s+/)
      .map(Number)[0]!;
    const before = treeRssKiB(serverPid);
    const held: string[] = [];
    for (let i = 0; i < options.live; i += 64) {
      const batch = Math.min(64, options.live - i);
      held.push(
        ...(await Promise.all(Array.from({ length: batch }, () => client.startEpisode("bfcl", CONFIG)))),
      );
      await Promise.all(
        held
          .slice(-batch)
          .map((id) =>
            client.callTool({ name: "bfcl__cd", arguments_json: '{"folder":"document"}', episode_id: id }),
          ),
      );
    }
    const after = treeRssKiB(serverPid);
    await Promise.all(held.map((id) => client.endEpisode(id)));
    const memory = {
      live_episodes: held.length,
      server_tree_rss_before_kib: before,
      server_tree_rss_live_kib: after,
      kib_per_live_episode: round((after - before) / Math.max(1, held.length)),
    };
    process.stderr.write(
      `memory  ${memory.kib_per_live_episode} KiB per live episode (${held.length} live)\n`,
    );
    // The server process is up once the gateway lists it; warm up (JIT, workers, connections).
    await measure(episode, 16, 64);
    callErrors = 0;
    /** c1 then c64; with `parts`, CPU ms per episode of each part over the c64 run. */
    const both = async (name: string, fn: () => Promise<boolean>, parts: Record<string, number[]> = {}) => {
      const c1 = await measure(fn, 1, Math.max(50, Math.floor(options.episodes / 4)));
      const before = Object.fromEntries(Object.entries(parts).map(([k, pids]) => [k, cpuMs(pids)]));
      const c64 = await measure(fn, 64, options.episodes);
      const cpu = Object.fromEntries(
        Object.entries(parts).map(([k, pids]) => [k, round((cpuMs(pids) - before[k]!) / options.episodes)]),
      );
      process.stderr.write(
        `${name.padEnd(16)} c1: ${c1.throughput_per_s}/s p50 ${c1.p50_ms} ms | c64: ${c64.throughput_per_s}/s p50 ${c64.p50_ms} ms p99 ${c64.p99_ms} ms\n`,
      );
      if (Object.keys(parts).length > 0)
        process.stderr.write(`${"".padEnd(16)} CPU ms per episode at 64: ${JSON.stringify(cpu)}\n`);
      return { runs: { c1, c64 }, cpu };
    };
    // Where the CPU goes in the gateway runs at 64 in flight: per episode, per process (client = this process).
    const gatewayParts = () => ({
      client: [process.pid],
      gateway: [gateway.pid!],
      environment_server: [serverPid],
      python_workers: processTree(serverPid).filter((p) => p !== serverPid),
    });
    const { runs: viaGateway, cpu: cpuMsPerEpisode } = await both("gateway", episode, gatewayParts());
    const batched = async (): Promise<boolean> => {
      const id = await client.startEpisode("bfcl", CONFIG);
      const results = await client.callTools({
        calls: CALLS.map(([tool, args], i) => ({
          name: `bfcl__${tool}`,
          arguments_json: JSON.stringify(args),
          episode_id: id,
          call_id: String(i),
        })),
      });
      callErrors += results.filter((r) => r.error_code !== "OK").length;
      await client.snapshotEpisode(id);
      return "GorillaFileSystem" in ((await client.endEpisode(id)) as Record<string, unknown>);
    };
    const { runs: viaGatewayBatched, cpu: cpuMsPerEpisodeBatched } = await both(
      "gateway_batched",
      batched,
      gatewayParts(),
    );

    // The same episodes on the environment server directly (its own process, stdio), no gateway.
    const mcp = new Client(
      { name: "bench", version: "0" },
      { versionNegotiation: { mode: options.protocol ?? "auto" } },
    );
    const directTransport = new StdioClientTransport({ command: process.execPath, args: envArgs });
    await mcp.connect(directTransport);
    const direct = async (): Promise<boolean> => {
      const created = await mcp.callTool({ name: "episode_create", arguments: { config: CONFIG } });
      const handle = (created.structuredContent as { episode: string }).episode;
      for (const [tool, args] of CALLS) {
        const r = await mcp.callTool({ name: tool, arguments: { ...args, episode: handle } });
        if (r.isError) callErrors++;
      }
      await mcp.callTool({ name: "episode_snapshot", arguments: { episode: handle } });
      const closed = await mcp.callTool({ name: "episode_close", arguments: { episode: handle } });
      return !closed.isError;
    };
    await measure(direct, 16, 64);
    // Where the CPU goes without the gateway: the MCP client (this process), the server, its workers.
    const directPid = directTransport.pid!;
    const { runs: directMcp, cpu: cpuMsPerEpisodeDirect } = await both("direct_mcp", direct, {
      client: [process.pid],
      environment_server: [directPid],
      python_workers: processTree(directPid).filter((p) => p !== directPid),
    });
    await mcp.close();

    const forkMs: number[] = [];
    const parent = await client.startEpisode("bfcl", CONFIG);
    for (const [tool, args] of CALLS.slice(0, 5))
      await client.callTool({
        name: `bfcl__${tool}`,
        arguments_json: JSON.stringify(args),
        episode_id: parent,
      });
    for (let i = 0; i < options.forks; i++) {
      const t0 = performance.now();
      const ids = await client.forkEpisode(parent, 16);
      forkMs.push(performance.now() - t0);
      if (ids.length !== 16) throw new Error(`a fork of 16 answered ${ids.length} ids`);
      await Promise.all(ids.map((id) => client.endEpisode(id)));
    }
    await client.endEpisode(parent);
    const q = (p: number) => nearestRankPercentile(forkMs, p * 100) ?? 0;
    const fork16 = {
      runs: forkMs.length,
      p50_ms: round(q(0.5)),
      p99_ms: round(q(0.99)),
      mean_ms: round(forkMs.reduce((a, b) => a + b, 0) / Math.max(1, forkMs.length)),
    };
    process.stderr.write(`fork of 16  p50 ${fork16.p50_ms} ms, mean ${fork16.mean_ms} ms\n`);

    client.close();

    const grpcFloor = await measureGrpcFloor(Math.max(2_000, options.episodes * 5));
    process.stderr.write(
      `grpc floor  ${grpcFloor.calls_per_s_c64} calls/s at 64 → at most ${grpcFloor.episodes_per_s_ceiling} episodes/s of ${RPCS_PER_EPISODE} RPCs\n`,
    );

    // The floor of an episode through the gateway on this machine, with a gateway that did nothing of
    // its own: its 13 gRPC round trips (both sides, grpc-js) plus the same operations over MCP (client,
    // environment server, workers). Every core busy, episodes/s cannot pass cores × 1000 ÷ that.
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    const floorMs = round(RPCS_PER_EPISODE * grpcFloor.cpu_ms_per_call.total + sum(cpuMsPerEpisodeDirect));
    const bound = {
      cpu_ms_per_episode_grpc: round(RPCS_PER_EPISODE * grpcFloor.cpu_ms_per_call.total),
      cpu_ms_per_episode_direct_mcp: round(sum(cpuMsPerEpisodeDirect)),
      cpu_ms_per_episode_floor: floorMs,
      cpu_ms_per_episode_via_gateway: round(sum(cpuMsPerEpisode)),
      episodes_per_s_ceiling: round((cpus().length * 1000) / floorMs),
    };
    process.stderr.write(`bound  ${JSON.stringify(bound)}\n`);

    const report = {
      benchmark: "episodes",
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? "", node: process.version },
      environment: "rlf env bfcl (GorillaFileSystem), stdio, spawned by the gateway",
      workers: options.workers ?? "default (CPUs)",
      protocol: options.protocol ?? "auto",
      operations_per_episode: "start + 10 calls + snapshot + end",
      call_errors: callErrors,
      episodes_per_s: { gateway: viaGateway, gateway_batched: viaGatewayBatched, direct_mcp: directMcp },
      cpu_ms_per_episode_via_gateway: cpuMsPerEpisode,
      cpu_ms_per_episode_via_gateway_batched: cpuMsPerEpisodeBatched,
      cpu_ms_per_episode_direct_mcp: cpuMsPerEpisodeDirect,
      fork_16: fork16,
      memory,
      grpc_floor: grpcFloor,
      bound,
      targets: {
        episodes_per_s_at_64: { min: 500, met: viaGateway.c64.throughput_per_s >= 500 },
        fork_16_ms: { max: 5, met: fork16.p50_ms <= 5 },
      },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`written to ${out}\n`);
  } finally {
    gateway.kill("SIGTERM");
  }
}

/** StartEpisode + 10 CallTool + SnapshotEpisode + EndEpisode. */
const RPCS_PER_EPISODE = 13;

/**
 * A raw grpc-js unary echo server (its own process) called at 64 in flight: calls/s, CPU per call on
 * each side, and the episodes/s that rate allows at RPCS_PER_EPISODE unary calls per episode.
 */
async function measureGrpcFloor(calls: number) {
  const echo = spawn(process.execPath, [join(here, "echo-server.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const { port } = await waitForLine(echo, (r) => typeof r.port === "number");
    const def = loadSync(join(here, "echo.proto"), { keepCase: true });
    const Echo = ((loadPackageDefinition(def).rlfactory as GrpcObject).bench as GrpcObject)
      .Echo as ServiceClientConstructor;
    const raw = new Echo(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as {
      Echo(req: unknown, cb: (err: unknown) => void): void;
      close(): void;
    };
    const payload = { payload: JSON.stringify({ name: "bfcl__cd", arguments: { folder: "document" } }) };
    const call = () => new Promise<boolean>((res) => raw.Echo(payload, (err) => res(!err)));
    // As warm as the gateway and this client are by the time they are measured: a short warm-up
    // leaves grpc-js half-compiled (its CPU per call still falls by a third over the next 10,000).
    await measure(call, 64, calls);
    const before = { client: cpuMs([process.pid]), server: cpuMs([echo.pid!]) };
    const c64 = await measure(call, 64, calls);
    const round3 = (x: number) => Math.round(x * 1000) / 1000;
    const cpu = {
      client: round3((cpuMs([process.pid]) - before.client) / calls),
      server: round3((cpuMs([echo.pid!]) - before.server) / calls),
    };
    raw.close();
    return {
      calls_per_s_c64: c64.throughput_per_s,
      cpu_ms_per_call: { ...cpu, total: round3(cpu.client + cpu.server) },
      rpcs_per_episode: RPCS_PER_EPISODE,
      episodes_per_s_ceiling: round(c64.throughput_per_s / RPCS_PER_EPISODE),
    };
  } finally {
    echo.kill("SIGTERM");
  }
}

export function episodesBenchArgs(argv: string[]): { out: string; options: EpisodesBenchOptions } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      out: { type: "string", default: "bench-episodes.json" },
      episodes: { type: "string", default: "2000" },
      forks: { type: "string", default: "100" },
      live: { type: "string", default: "512" },
      workers: { type: "string" },
      protocol: { type: "string" },
    },
  });
  if (values.protocol !== undefined && values.protocol !== "auto" && values.protocol !== "legacy")
    throw new Error(`--protocol must be auto or legacy\nusage: ${EPISODES_BENCH_USAGE}`);
  const int = (flag: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${flag} must be a positive integer\nusage: ${EPISODES_BENCH_USAGE}`);
    return n;
  };
  return {
    out: values.out,
    options: {
      episodes: int("episodes", values.episodes),
      forks: int("forks", values.forks),
      live: int("live", values.live),
      ...(values.workers ? { workers: int("workers", values.workers) } : {}),
      ...(values.protocol ? { protocol: values.protocol as "auto" | "legacy" } : {}),
    },
  };
}
