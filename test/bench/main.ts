// Benchmarks (JSON output; never timing asserts in tests).
//
//   npm run bench -- gateway --out FILE.json [--requests N] [--tool-transport http|stdio]
//   npm run bench -- search --out FILE.json [--passages N]     (test/bench/search.ts)
//   npm run bench -- rollout --out FILE.json                   (test/bench/rollout.ts)
//   npm run bench -- engine-turn --out FILE.json               (test/bench/engine-turn.ts: engine CPU per turn)
//   npm run bench -- episodes --out FILE.json                  (test/bench/episodes.ts)
//   npm run bench -- learn --out FILE.json                     (test/bench/learn.ts: TRL GRPO, SmolLM2, CPU)
//   npm run bench -- real-inference --vllm URL --out FILE.json (test/bench/real-inference.ts; a running vLLM)
//   npm run bench -- cli-startup --out FILE.json [--runs 5]     (test/bench/cli-startup.ts: rlf's start-up CPU)
//   npm run bench -- ftrl-replay --ftrl DIR --out FILE.json    (test/bench/ftrl-replay.ts: FTRL's τ-bench, byte for byte)
//   npm run bench -- agent-capture --out FILE.json             (test/bench/agent-capture.ts: the capture endpoint vs direct)
//
// `gateway` measures, in one run on loopback, each at concurrency 1 and 64:
//   raw_grpc          a raw grpc-js unary echo (the floor any gRPC service pays)
//   gateway_cached    the gateway serving cache hits
//   direct_mcp        an MCP SDK client calling the tool server directly
//   gateway_uncached  the gateway calling the same tool server, cache bypassed
// and writes ratios.cached_vs_raw_grpc and ratios.uncached_vs_direct_mcp (throughput at 64).

import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
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
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { GatewayClient } from "@rlfactory/clients";
import { startTestbedHttp, TESTBED_SERVER_PATH } from "@rlfactory/test-support/testbed-process";
import { measure } from "./measure.ts";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const RLF = join(ROOT, "services/cli/src/main.ts");

const round = (x: number) => Math.round(x * 100) / 100;

async function scenario(name: string, fn: () => Promise<boolean>, requests: number) {
  await measure(fn, 16, Math.min(500, requests)); // warm-up: JIT, connections, caches
  const c1 = await measure(fn, 1, Math.max(200, Math.floor(requests / 4)));
  const c64 = await measure(fn, 64, requests);
  process.stderr.write(
    `${name.padEnd(17)} c1: ${c1.throughput_per_s}/s p50 ${c1.p50_ms} ms p99 ${c1.p99_ms} ms | c64: ${c64.throughput_per_s}/s p50 ${c64.p50_ms} ms p99 ${c64.p99_ms} ms${c64.errors ? ` (${c64.errors} errors)` : ""}\n`,
  );
  return { c1, c64 };
}

function spawnJsonLine(
  args: string[],
  pick: (rec: Record<string, unknown>) => boolean,
  stream: "stdout" | "stderr" = "stdout",
) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "info" },
  });
  return new Promise<{ child: ChildProcess; rec: Record<string, unknown> }>((resolvePromise, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
    createInterface({ input: child[stream]! }).on("line", (line) => {
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        if (pick(rec)) resolvePromise({ child, rec });
      } catch {
        // not JSON
      }
    });
  });
}

/**
 * Runs this command again in a child Node started with `flags` before this process's own (so a
 * `--cpu-prof` given to this process profiles the child); SIGINT / SIGTERM are passed on. Its exit code.
 */
function rerunWith(flags: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  const pass = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGINT", pass).on("SIGTERM", pass);
  return new Promise((resolveExit, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolveExit(code ?? (signal === null ? 1 : 128)));
  });
}

async function benchGateway(out: string, requests: number, toolTransport: "http" | "stdio") {
  const children: ChildProcess[] = [];
  try {
    // 1. raw grpc-js echo
    const echo = await spawnJsonLine([join(here, "echo-server.ts")], (r) => typeof r.port === "number");
    children.push(echo.child);
    const def = loadSync(join(here, "echo.proto"), { keepCase: true });
    const Echo = ((loadPackageDefinition(def).rlfactory as GrpcObject).bench as GrpcObject)
      .Echo as ServiceClientConstructor;
    const echoClient = new Echo(`127.0.0.1:${echo.rec.port}`, credentials.createInsecure()) as unknown as {
      Echo(req: unknown, cb: (err: unknown, res: unknown) => void): void;
    };
    const payload = { payload: JSON.stringify({ name: "testbed__echo", arguments: { value: "hello" } }) };
    const raw = await scenario(
      "raw_grpc",
      () => new Promise<boolean>((res) => echoClient.Echo(payload, (err) => res(!err))),
      requests,
    );

    // The tool server: the testbed over Streamable HTTP (default) or stdio.
    const testbed = toolTransport === "http" ? await startTestbedHttp() : undefined;
    if (testbed) children.push(testbed.child);
    const serverEntry = testbed
      ? { url: testbed.url }
      : { command: process.execPath, args: [TESTBED_SERVER_PATH, "--stdio"] };

    // 2. direct MCP client → tool server
    const mcp = new Client({ name: "bench", version: "0" }, { versionNegotiation: { mode: "auto" } });
    await mcp.connect(
      testbed
        ? new StreamableHTTPClientTransport(new URL(testbed.url))
        : new StdioClientTransport({ command: process.execPath, args: [TESTBED_SERVER_PATH, "--stdio"] }),
    );
    const direct = await scenario(
      "direct_mcp",
      async () => !(await mcp.callTool({ name: "echo", arguments: { value: "hello" } })).isError,
      requests,
    );
    await mcp.close();

    // 3 + 4. the gateway in its own process, as deployed
    const { writeFileSync: write, mkdtempSync } = await import("node:fs");
    const dir = mkdtempSync(join((await import("node:os")).tmpdir(), "rlf-bench-"));
    const config = join(dir, "gateway.json");
    write(
      config,
      JSON.stringify({
        grpc: { port: 0 },
        admin: { port: 0 },
        servers: { testbed: { ...serverEntry, tools: { echo: { cache: true } } } },
      }),
    );
    const gw = await spawnJsonLine(
      [RLF, "gateway", "--config", config],
      (r) => r.msg === "gateway listening",
    );
    children.push(gw.child);
    const client = new GatewayClient(String(gw.rec.grpc));
    const call = { name: "testbed__echo", arguments_json: JSON.stringify({ value: "hello" }) };
    await client.callTool(call);
    const cached = await scenario(
      "gateway_cached",
      async () => {
        const r = await client.callTool(call);
        return r.error_code === "OK" && r.cache_hit;
      },
      requests,
    );
    const uncached = await scenario(
      "gateway_uncached",
      async () => (await client.callTool({ ...call, cache: "CACHE_BYPASS" })).error_code === "OK",
      requests,
    );
    client.close();

    const ratios = {
      cached_vs_raw_grpc: round(cached.c64.throughput_per_s / raw.c64.throughput_per_s),
      uncached_vs_direct_mcp: round(uncached.c64.throughput_per_s / direct.c64.throughput_per_s),
    };
    const report = {
      benchmark: "gateway",
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? "", node: process.version },
      tool_transport: toolTransport,
      requests_at_c64: requests,
      scenarios: { raw_grpc: raw, gateway_cached: cached, direct_mcp: direct, gateway_uncached: uncached },
      ratios,
      targets: {
        cached_vs_raw_grpc: { min: 0.8, met: ratios.cached_vs_raw_grpc >= 0.8 },
        uncached_vs_direct_mcp: { min: 1.0, met: ratios.uncached_vs_direct_mcp >= 1.0 },
        uncached_p99_within_3x_p50: {
          met: uncached.c64.p99_ms <= 3 * uncached.c64.p50_ms,
          p50_ms: uncached.c64.p50_ms,
          p99_ms: uncached.c64.p99_ms,
        },
      },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`ratios ${JSON.stringify(ratios)}; written to ${out}\n`);
  } finally {
    for (const c of children) c.kill("SIGTERM");
  }
}

const USAGE = `usage: npm run bench -- gateway --out FILE.json [--requests N] [--tool-transport http|stdio]
       npm run bench -- search --out FILE.json [--passages N] [--queries N] [--dir DIR] [--workers N] [--concurrent-lucene] [--no-lucene] [--reuse-index]
       npm run bench -- rollout --out FILE.json   (options: test/bench/rollout.ts)
       npm run bench -- engine-turn --out FILE.json [--in-flight 64,512,2048,8192] [--turns 3,11,31] [--modes lockstep,async]
       npm run bench -- observation-encode [--observations 20000] [--rounds 5]   (JSON to stdout)
       npm run bench -- episodes --out FILE.json [--episodes N] [--forks N] [--live N] [--workers N] [--protocol auto|legacy]
       npm run bench -- learn --out FILE.json [--model-dir DIR] [--steps 30] [--eval-tasks 100]   (options: test/bench/learn.ts)
       npm run bench -- real-inference --vllm URL --out FILE.json   (options: test/bench/real-inference.ts)
       npm run bench -- cli-startup --out FILE.json [--runs 5] [--hotpotqa FILE]
       npm run bench -- ftrl-replay --ftrl DIR --out FILE.json [--environments retail,airline] [--show N]
       npm run bench -- agent-capture --out FILE.json [--sessions N] [--concurrency N] [--ttft-ms N] [--tokens-per-s N] [--rounds N]
`;

const [which, ...rest] = process.argv.slice(2);
if (which === "gateway") {
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: "string", default: "bench-gateway.json" },
      requests: { type: "string", default: "5000" },
      "tool-transport": { type: "string", default: "http" },
    },
  });
  const transport = values["tool-transport"] === "stdio" ? "stdio" : "http";
  await benchGateway(values.out, Number(values.requests), transport);
} else if (which === "search") {
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: "string", default: "bench-search.json" },
      passages: { type: "string" },
      queries: { type: "string" },
      dir: { type: "string" },
      workers: { type: "string" },
      "concurrent-lucene": { type: "boolean" },
      "no-lucene": { type: "boolean" },
      "reuse-index": { type: "boolean" },
    },
  });
  const { benchSearch } = await import("./search.ts");
  await benchSearch(values.out, {
    ...(values.passages ? { passages: Number(values.passages) } : {}),
    ...(values.queries ? { queries: Number(values.queries) } : {}),
    ...(values.dir ? { dir: values.dir } : {}),
    ...(values.workers ? { workers: Number(values.workers) } : {}),
    ...(values["concurrent-lucene"] ? { concurrentLucene: true } : {}),
    ...(values["no-lucene"] ? { noLucene: true } : {}),
    ...(values["reuse-index"] ? { reuseIndex: true } : {}),
  });
} else if (which === "rollout") {
  const { benchRollout, rolloutBenchArgs } = await import("./rollout.ts");
  const { out, options } = rolloutBenchArgs(rest);
  await benchRollout(out, options);
} else if (which === "observation-encode") {
  await import("./observation-encode.ts"); // reads --observations N --rounds N itself, JSON to stdout
} else if (which === "engine-turn") {
  const { benchEngineTurn, engineTurnArgs } = await import("./engine-turn.ts");
  const { out, options } = engineTurnArgs(rest);
  const { SERVICE_NODE_FLAGS } = await import("./service-node-flags.ts");
  // The measured engine is this process: it runs with the rollout service's Node flags (the image's),
  // so this process starts itself again with them when it was started without
  if (SERVICE_NODE_FLAGS.every((f) => process.execArgv.includes(f))) await benchEngineTurn(out, options);
  else process.exit(await rerunWith(SERVICE_NODE_FLAGS));
} else if (which === "episodes") {
  const { benchEpisodes, episodesBenchArgs } = await import("./episodes.ts");
  const { out, options } = episodesBenchArgs(rest);
  await benchEpisodes(out, options);
} else if (which === "learn") {
  const { benchLearn, learnBenchArgs } = await import("./learn.ts");
  const { out, modelDir, passed } = learnBenchArgs(rest);
  process.exit(await benchLearn(out, modelDir, passed));
} else if (which === "real-inference") {
  const { benchRealInference, realInferenceBenchArgs } = await import("./real-inference.ts");
  let parsed: ReturnType<typeof realInferenceBenchArgs>;
  try {
    parsed = realInferenceBenchArgs(rest);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  await benchRealInference(parsed.out, parsed.options);
} else if (which === "cli-startup") {
  const { benchCliStartup, cliStartupBenchArgs } = await import("./cli-startup.ts");
  const { out, options } = cliStartupBenchArgs(rest);
  await benchCliStartup(out, options);
} else if (which === "ftrl-replay") {
  const { benchFtrlReplay, ftrlReplayBenchArgs } = await import("./ftrl-replay.ts");
  let parsed: ReturnType<typeof ftrlReplayBenchArgs>;
  try {
    parsed = ftrlReplayBenchArgs(rest);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  process.exit(await benchFtrlReplay(parsed.out, parsed.options));
} else if (which === "agent-capture") {
  const { benchAgentCapture, agentCaptureBenchArgs } = await import("./agent-capture.ts");
  const { out, options } = agentCaptureBenchArgs(rest);
  await benchAgentCapture(out, options);
} else {
  process.stderr.write(USAGE);
  process.exit(2);
}
process.exit(0);
