// `npm run bench -- agent-capture --out FILE.json [--sessions N] [--concurrency N] [--ttft-ms N]
//  [--tokens-per-s N] [--rounds N]`:
// what the capture endpoint of `rlf rollout agent` costs an agent. The same agent sessions (an OpenAI
// chat tool loop: a search call, its result, the answer; greedy, so both ways generate the same
// tokens; in groups of 4 asked the same question, as `rlf rollout agent` runs a GRPO group) run two ways against the simulated inference server in its own process, as an engine is
// (search-then-answer, real Qwen3 tokenizer, a length-based latency model standing in for decoding):
//   direct    the agent calls the server's own /v1/chat/completions (the server renders the template)
//   capture   the agent calls the capture endpoint, which renders the template, checks the prefix,
//             sends token ids to the server's /v1/completions and records the trajectory
// Each round runs both (which goes first alternates); the report has completion tokens/s per run, the
// CPU this process spent per request (capture − direct: what the capture adds), and
// ratios.capture_overhead = 1 − capture tokens/s ÷ direct tokens/s over all rounds (goal ≤ 0.05), with
// capture_overhead_median, the median of the rounds' own ratios (robust to a noisy machine).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { nearestRankPercentile } from "@rlfactory/kit";
import { createSampler, qwen3Tokenizer, startCaptureServer, toolCallFormat } from "@rlfactory/rollout";
import { freePort, RLF_SIM, ROOT, waitFor } from "@rlfactory/test-support/gateway-harness";

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

const SEARCH_TOOL = {
  type: "function",
  function: {
    name: "search__search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

const PASSAGES = [
  'Doc 1(Title: "Paris") Paris is the capital and most populous city of France.',
  'Doc 2(Title: "Lyon") Lyon is the third-largest city of France, at the confluence of the Rhône and the Saône.',
  'Doc 3(Title: "Marseille") Marseille is a port city in southern France on the Mediterranean coast.',
].join("\n");

interface ChatReply {
  choices: {
    message: { content: string | null; tool_calls?: { id: string; function: { arguments: string } }[] };
  }[];
  usage: { completion_tokens: number };
}

/** One agent session: ask, run the search calls it makes, ask again, until a reply has no call. */
async function session(baseUrl: string, i: number): Promise<{ requests: number; tokens: number }> {
  const messages: unknown[] = [
    { role: "user", content: `Question: which city is the capital of France ${i}` },
  ];
  let requests = 0;
  let tokens = 0;
  for (let turn = 0; turn < 4; turn++) {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages, tools: [SEARCH_TOOL], temperature: 0, max_tokens: 256 }),
    });
    if (!res.ok) throw new Error(`${baseUrl}: HTTP ${res.status} ${await res.text()}`);
    const reply = (await res.json()) as ChatReply;
    requests += 1;
    tokens += reply.usage.completion_tokens;
    const message = reply.choices[0]!.message;
    messages.push({
      role: "assistant",
      content: message.content ?? "",
      ...(message.tool_calls?.length && { tool_calls: message.tool_calls }),
    });
    if (!message.tool_calls?.length) break;
    for (const call of message.tool_calls)
      messages.push({ role: "tool", tool_call_id: call.id, content: PASSAGES });
  }
  return { requests, tokens };
}

interface Run {
  sessions: number;
  requests: number;
  completion_tokens: number;
  wall_ms: number;
  tokens_per_s: number;
  cpu_ms_per_request: number;
}

async function runSessions(
  baseUrlOf: (i: number) => string,
  n: number,
  concurrency: number,
  offset: number,
): Promise<Run> {
  let next = 0;
  let requests = 0;
  let tokens = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const r = await session(baseUrlOf(offset + i), offset + i);
        requests += r.requests;
        tokens += r.tokens;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    sessions: n,
    requests,
    completion_tokens: tokens,
    wall_ms: round(wallMs, 1),
    tokens_per_s: round(tokens / (wallMs / 1000), 1),
    cpu_ms_per_request: round((cpu.user + cpu.system) / 1000 / requests, 3),
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
  try {
    // warm-up: JIT, connections, the template compiled
    await runSessions(() => `${sim.url}/v1`, 16, 8, 0);
    await runSessions((i) => capture.baseUrl(`w${i}`), 16, 8, 0);
    const rounds: { direct: Run; capture: Run }[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const offset = (r + 1) * 100_000;
      // alternate which goes first, so a drift in the machine's load does not favour one side
      const runDirect = () => runSessions(() => `${sim.url}/v1`, o.sessions, o.concurrency, offset);
      const runCapture = () =>
        runSessions((i) => capture.baseUrl(`r${r}-${i}`), o.sessions, o.concurrency, offset);
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
      process.stderr.write(
        `round ${r}: direct ${direct.tokens_per_s} tok/s (${direct.cpu_ms_per_request} ms CPU/request) | capture ${captured.tokens_per_s} tok/s (${captured.cpu_ms_per_request} ms CPU/request)\n`,
      );
    }
    const sum = (k: "direct" | "capture", f: keyof Run) => rounds.reduce((a, x) => a + x[k][f], 0);
    const directTps = sum("direct", "completion_tokens") / (sum("direct", "wall_ms") / 1000);
    const captureTps = sum("capture", "completion_tokens") / (sum("capture", "wall_ms") / 1000);
    const report = {
      bench: "agent-capture",
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
      parameters: {
        sessions: o.sessions,
        in_flight: o.concurrency,
        rounds: o.rounds,
        latency: { ttft_ms: o.ttftMs, tokens_per_s: o.tokensPerS },
        policy: "search-then-answer (a search call, then the answer), greedy",
      },
      rounds,
      ratios: {
        capture_overhead: Math.round((1 - captureTps / directTps) * 10_000) / 10_000,
        capture_overhead_median:
          Math.round(
            (nearestRankPercentile(
              rounds.map((x) => 1 - x.capture.tokens_per_s / x.direct.tokens_per_s),
              50,
            ) ?? 0) * 10_000,
          ) / 10_000,
        capture_cpu_ms_per_request_added:
          Math.round(
            (sum("capture", "cpu_ms_per_request") / o.rounds -
              sum("direct", "cpu_ms_per_request") / o.rounds) *
              1000,
          ) / 1000,
      },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`ratios ${JSON.stringify(report.ratios)}; written to ${out}\n`);
  } finally {
    await capture.close();
    await sampler.close();
    await sim.close();
  }
}
