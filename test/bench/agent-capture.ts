// `npm run bench -- agent-capture --out FILE.json [--sessions N] [--concurrency N] [--ttft-ms N]
//  [--tokens-per-s N] [--rounds N]`:
// what the capture endpoint of `rlf rollout agent` costs an agent. The same agent sessions (an OpenAI
// chat tool loop: a search call, its result, the answer; greedy, so both ways generate the same
// tokens; in groups of 4 asked the same question, as `rlf rollout agent` runs a GRPO group) run two
// ways against the simulated inference server (search-then-answer, real Qwen3 tokenizer, a
// length-based latency model standing in for decoding):
//   direct    the agent calls the server's own /v1/chat/completions (the server renders the template)
//   capture   the agent calls the capture endpoint, which renders the template, checks the prefix,
//             sends token ids to the server's /v1/completions and records the trajectory
// As deployed, each is a process of its own: the agent program (capture-agent.ts, a child), the
// capture endpoint (this process) and the inference server (a child). Each round runs both (which goes
// first alternates); the report has, per run, completion tokens/s (the agent's wall time) and the CPU
// per request of each process and of all together (the server's from /proc; null where there is
// none), and ratios: capture_overhead = 1 − capture tokens/s ÷ direct tokens/s over all rounds (goal
// ≤ 0.05), capture_overhead_median (the median of the rounds' own ratios, robust to a noisy machine),
// capture_endpoint_cpu_ms_per_request (the capture endpoint's own CPU per request) and
// capture_cpu_ms_per_request_added (all processes' CPU per request, capture − direct).
import { execFileSync, fork, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { nearestRankPercentile } from "@rlfactory/kit";
import { createSampler, qwen3Tokenizer, startCaptureServer, toolCallFormat } from "@rlfactory/rollout";
import { freePort, RLF_SIM, ROOT, waitFor } from "@rlfactory/test-support/gateway-harness";
import type { AgentRunRequest, AgentRunResult } from "./capture-agent.ts";

const CAPTURE_AGENT = fileURLToPath(new URL("./capture-agent.ts", import.meta.url));

export const AGENT_CAPTURE_BENCH_USAGE =
  "npm run bench -- agent-capture --out FILE.json [--sessions 128] [--concurrency 32] [--ttft-ms 20] [--tokens-per-s 100] [--rounds 3]";

export interface AgentCaptureBenchOptions {
  sessions: number;
  concurrency: number;
  ttftMs: number;
  tokensPerS: number;
  rounds: number;
}

export function agentCaptureBenchArgs(argv: string[]): { out: string; options: AgentCaptureBenchOptions } {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string", default: "bench-agent-capture.json" },
      sessions: { type: "string", default: "128" },
      concurrency: { type: "string", default: "32" },
      "ttft-ms": { type: "string", default: "20" },
      "tokens-per-s": { type: "string", default: "100" },
      rounds: { type: "string", default: "3" },
    },
  });
  return {
    out: values.out,
    options: {
      sessions: Number(values.sessions),
      concurrency: Number(values.concurrency),
      ttftMs: Number(values["ttft-ms"]),
      tokensPerS: Number(values["tokens-per-s"]),
      rounds: Number(values.rounds),
    },
  };
}

/** CPU time (user + system, ms) of another process, from /proc; undefined where there is none (not Linux). */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // fields after the command name (in parentheses, which may hold spaces): utime and stime are 14 and 15
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux everywhere in practice). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU per request of each process in a run (ms); `all` is their sum. null: not measurable here. */
interface CpuPerRequest {
  agent: number;
  capture_endpoint: number;
  inference_server: number | null;
  all: number | null;
}

interface Run {
  sessions: number;
  requests: number;
  completion_tokens: number;
  wall_ms: number;
  tokens_per_s: number;
  cpu_ms_per_request: CpuPerRequest;
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** The agent program in its own process, running sessions when asked. */
function startAgent(): { run(request: AgentRunRequest): Promise<AgentRunResult>; close(): void } {
  const child = fork(CAPTURE_AGENT, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let pending: { resolve(r: AgentRunResult): void; reject(e: Error): void } | undefined;
  child.on("message", (m: { ok: true; result: AgentRunResult } | { ok: false; error: string }) => {
    const p = pending;
    pending = undefined;
    if (m.ok) p?.resolve(m.result);
    else p?.reject(new Error(`the agent: ${m.error}`));
  });
  child.on("exit", (code, signal) => {
    pending?.reject(new Error(`the agent exited (${signal ?? code})`));
    pending = undefined;
  });
  return {
    run: (request) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        child.send(request);
      }),
    close: () => {
      child.disconnect();
    },
  };
}

export async function benchAgentCapture(out: string, o: AgentCaptureBenchOptions): Promise<void> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      RLF_SIM,
      "llm",
      "--policy",
      "search-then-answer",
      "--port",
      String(port),
      "--seed",
      "1",
      "--ttft-ms",
      String(o.ttftMs),
      "--tokens-per-s",
      String(o.tokensPerS),
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  const sim = {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      child.kill("SIGTERM");
    },
  };
  await waitFor(
    async () => (await fetch(`${sim.url}/health`).catch(() => undefined))?.ok === true,
    30_000,
    "the simulated inference server",
  );
  const sampler = createSampler({ engine: "vllm", urls: [sim.url], max_concurrency: 1024 });
  const capture = await startCaptureServer({
    sampler,
    tokenizer: await qwen3Tokenizer(),
    toolCallFormat: toolCallFormat("hermes"),
  });
  const agent = startAgent();
  /** One run of the agent's sessions against `url`, with the CPU each process spent on it. */
  const runSessions = async (url: string, sessions: number, concurrency: number, offset: number) => {
    const self0 = process.cpuUsage();
    const sim0 = processCpuMs(child.pid);
    const r = await agent.run({ url, sessions, concurrency, offset });
    const self = process.cpuUsage(self0);
    const sim1 = processCpuMs(child.pid);
    const per = (ms: number) => round(ms / r.requests);
    const captureMs = (self.user + self.system) / 1000;
    const simMs = sim0 === undefined || sim1 === undefined ? undefined : sim1 - sim0;
    return {
      sessions,
      requests: r.requests,
      completion_tokens: r.completion_tokens,
      wall_ms: round(r.wall_ms, 1),
      tokens_per_s: round(r.completion_tokens / (r.wall_ms / 1000), 1),
      cpu_ms_per_request: {
        agent: per(r.cpu_ms),
        capture_endpoint: per(captureMs),
        inference_server: simMs === undefined ? null : per(simMs),
        all: simMs === undefined ? null : per(r.cpu_ms + captureMs + simMs),
      },
    } satisfies Run;
  };
  const directUrl = `${sim.url}/v1`;
  const load = [loadavg()[0]!];
  try {
    // warm-up, one uncounted round of each at full size: JIT of both paths at the measured concurrency,
    // connections, the template compiled (a smaller warm-up left the first counted rounds slower)
    await runSessions(directUrl, o.sessions, o.concurrency, 0);
    await runSessions(`${capture.url}/t/w{id}/v1`, o.sessions, o.concurrency, 0);
    for (let i = 0; i < o.sessions; i++) capture.takeSession(`w${i}`);
    const rounds: { direct: Run; capture: Run }[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const offset = (r + 1) * 100_000;
      // alternate which goes first, so a drift in the machine's load does not favour one side
      const runDirect = () => runSessions(directUrl, o.sessions, o.concurrency, offset);
      const runCapture = () =>
        runSessions(`${capture.url}/t/r${r}-{id}/v1`, o.sessions, o.concurrency, offset);
      let direct: Run;
      let captured: Run;
      if (r % 2 === 0) {
        direct = await runDirect();
        captured = await runCapture();
      } else {
        captured = await runCapture();
        direct = await runDirect();
      }
      for (let i = 0; i < o.sessions; i++) capture.takeSession(`r${r}-${offset + i}`);
      if (captured.completion_tokens !== direct.completion_tokens)
        throw new Error(
          `round ${r}: capture generated ${captured.completion_tokens} tokens, direct ${direct.completion_tokens}: not the same requests`,
        );
      rounds.push({ direct, capture: captured });
      const cpu = (x: Run) =>
        `CPU ms/request: agent ${x.cpu_ms_per_request.agent}, capture endpoint ${x.cpu_ms_per_request.capture_endpoint}, server ${x.cpu_ms_per_request.inference_server}, all ${x.cpu_ms_per_request.all}`;
      process.stderr.write(
        `round ${r}: direct ${direct.tokens_per_s} tok/s (${cpu(direct)}) | capture ${captured.tokens_per_s} tok/s (${cpu(captured)})\n`,
      );
    }
    load.push(loadavg()[0]!);
    const sum = (k: "direct" | "capture", f: "completion_tokens" | "wall_ms") =>
      rounds.reduce((a, x) => a + x[k][f], 0);
    /** Mean over rounds of one process's CPU per request (null when not measured). */
    const meanCpu = (k: "direct" | "capture", f: keyof CpuPerRequest): number | null => {
      const xs = rounds.map((x) => x[k].cpu_ms_per_request[f]);
      return xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, x) => a + x, 0) / xs.length;
    };
    const directTps = sum("direct", "completion_tokens") / (sum("direct", "wall_ms") / 1000);
    const captureTps = sum("capture", "completion_tokens") / (sum("capture", "wall_ms") / 1000);
    const allDirect = meanCpu("direct", "all");
    const allCapture = meanCpu("capture", "all");
    const report = {
      bench: "agent-capture",
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? "unknown",
        node: process.version,
        load_average_1m: { start: round(load[0]!, 2), end: round(load[1]!, 2) },
      },
      parameters: {
        sessions: o.sessions,
        in_flight: o.concurrency,
        rounds: o.rounds,
        latency: { ttft_ms: o.ttftMs, tokens_per_s: o.tokensPerS },
        policy: "search-then-answer (a search call, then the answer), greedy",
        processes:
          "the agent program, the capture endpoint (this process) and the inference server, each its own",
      },
      rounds,
      ratios: {
        capture_overhead: round(1 - captureTps / directTps, 4),
        capture_overhead_median: round(
          nearestRankPercentile(
            rounds.map((x) => 1 - x.capture.tokens_per_s / x.direct.tokens_per_s),
            50,
          ) ?? 0,
          4,
        ),
        capture_endpoint_cpu_ms_per_request: round(meanCpu("capture", "capture_endpoint")!),
        capture_cpu_ms_per_request_added:
          allDirect === null || allCapture === null ? null : round(allCapture - allDirect),
      },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`ratios ${JSON.stringify(report.ratios)}; written to ${out}\n`);
  } finally {
    agent.close();
    await capture.close();
    await sampler.close();
    await sim.close();
  }
}
