// `rlf rollout --config FILE --out DIR` as a user runs it, with OpenTelemetry on: the files it
// writes, the summary it prints, and one trace per trajectory that continues through the gateway
// into the tool server. Then `rlf rollout serve` with the same config; `rlf trainer`, its old name, is
// gone (an unknown command).
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { readTrajectoriesJsonl, readTrajectoriesParquet, SAMPLE_HOTPOTQA_TASKS } from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("rlf rollout", () => {
  let receiver: OtlpReceiver;
  let gateway: ChildGateway;
  let sim: SimulatedLlm;
  const out = join(tempDir("rlf-rollout-cli-"), "run");
  const config = join(tempDir("rlf-rollout-cfg-"), "rollout.yaml");
  let stdout = "";

  beforeAll(async () => {
    receiver = await startOtlpReceiver(0);
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "200" };
    [gateway, sim] = await Promise.all([
      spawnGateway(
        { servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } } },
        otel,
      ),
      startSimulatedLlm({ policy: "search-then-answer", seed: 4 }),
    ]);
    writeFileSync(
      config,
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
        `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS}, limit: 6 }`,
        "rollout: { group_size: 2, max_turns: 3, sampling: { temperature: 0.8, max_tokens: 128 } }",
        "reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }] }",
        "seed: 3",
      ].join("\n"),
    );
    ({ stdout } = await run(process.execPath, [RLF, "rollout", "--config", config, "--out", out], {
      cwd: ROOT,
      env: { ...process.env, ...otel },
      timeout: 60_000,
    }));
  }, 90_000);

  afterAll(async () => {
    await sim?.close();
    await gateway?.stop();
    await receiver?.close();
  });

  it("writes every trajectory as JSONL and Parquet, a summary and an HTML report", async () => {
    const jsonl = await readTrajectoriesJsonl(join(out, "trajectories.jsonl"));
    expect(jsonl).toHaveLength(12);
    const parquet = await readTrajectoriesParquet(join(out, "trajectories.parquet"));
    expect(parquet).toEqual(
      expect.arrayContaining(jsonl.map((t) => expect.objectContaining({ task_id: t.task_id }))),
    );
    expect(parquet.map((t) => t.response_ids)).toEqual(jsonl.map((t) => t.response_ids));
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.status.completed + summary.status.truncated).toBe(12);
    const rewards = jsonl.map((t) => t.reward ?? 0);
    expect(summary.reward.mean).toBeCloseTo(rewards.reduce((a, b) => a + b, 0) / rewards.length, 6);
    expect(existsSync(join(out, "report.html"))).toBe(true);
    // The console's Run view with the run inlined (test/console/run-report.e2e.test.ts opens one).
    const report = readFileSync(join(out, "report.html"), "utf8");
    expect(report).toContain("globalThis.__RLF_STATIC__");
    expect(report).not.toMatch(/\s(src|href)=/);
    expect(stdout).toContain("wrote 12 trajectories");
  });

  it("traces each trajectory through the gateway into the tool server", async () => {
    const [toolSpan] = await receiver.waitFor(
      (s) => s.serviceName === "rlf-tool-search" && s.kind === "SERVER",
      15_000,
    );
    const trace = await receiver.waitFor((s) => s.traceId === toolSpan?.traceId, 15_000, 6);
    const names = trace.map((s) => `${s.serviceName} ${s.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "rlf-rollout rollout.trajectory",
        "rlf-rollout rollout.turn",
        "rlf-rollout rollout.tools",
        "rlf-gateway rlfactory.v1.ToolGateway/CallTools",
        "rlf-tool-search tools/call search",
      ]),
    );
    // parent links: tool server ← gateway ← rollout.tools ← rollout.turn ← rollout.trajectory
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    let span = toolSpan;
    const chain: string[] = [];
    while (span) {
      chain.push(span.name);
      span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    }
    expect(chain.at(-1)).toBe("rollout.trajectory");
    expect(chain).toContain("rollout.turn");
    // each record names its trace (the console's trace link): this tool call's is one of them
    const records = await readTrajectoriesJsonl(join(out, "trajectories.jsonl"));
    const traceIds = records.map((t) => t.metadata?.trace_id);
    expect(new Set(traceIds).size).toBe(records.length);
    expect(traceIds).toContain(toolSpan?.traceId);
  });

  it("rlf rollout serve serves the config's engine over HTTP", async () => {
    const child = spawn(
      process.execPath,
      [RLF, "rollout", "serve", "--config", config, "--grpc-port", "0", "--http-port", "0"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
    try {
      const http = await listeningUrl(child);
      child.stdout?.resume(); // keep its log flowing
      const res = await fetch(`${http}/v1/rollout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          tasks: [{ id: "q1", prompt: [{ role: "user", content: "Who directed Doctor Strange?" }] }],
          group_size: 2,
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { groups: { trajectories: { task_id: string }[] }[] };
      expect(body.groups.map((g) => g.trajectories.map((t) => t.task_id))).toEqual([["q1", "q1"]]);
      expect(stderr).toEqual([]);
    } finally {
      await stop(child);
    }
  });

  it("rlf trainer, the old name of rlf rollout, is an unknown command", () => {
    const old = spawnSync(process.execPath, [RLF, "trainer", "serve", "--help"], { encoding: "utf8" });
    expect(old.status).toBe(2);
    expect(old.stdout).toBe("");
    expect(old.stderr).toMatch(/^rlf: unknown command "trainer"\n/);
  });
});

/** The HTTP URL of a starting rollout service, from its "rollout service listening" log line. */
async function listeningUrl(child: ChildProcess): Promise<string> {
  if (!child.stdout) throw new Error("no stdout");
  for await (const line of createInterface({ input: child.stdout })) {
    if (!line.includes("rollout service listening")) continue;
    return (JSON.parse(line) as { http: string }).http.replace(/\/$/, "");
  }
  throw new Error(`the rollout service exited (${child.exitCode}) before it listened`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
