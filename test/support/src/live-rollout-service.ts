// A real `rlf rollout serve` (child process) in front of a child gateway with the search server and the
// simulated LLM (search-then-answer) slowed to `turnMs` per request, so a request of many tasks stays
// in flight long enough to be watched: the console's live runs read its GET /v1/runs.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { SAMPLE_HOTPOTQA_TASKS } from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, stopChild, tempDir } from "./gateway-harness.ts";

export interface LiveRolloutService {
  gateway: ChildGateway;
  /** The service's HTTP URL (`http://127.0.0.1:PORT`). */
  httpUrl: string;
  /**
   * POSTs `tasks` sample HotpotQA tasks × `groupSize` to /v1/rollout and resolves with the groups'
   * count once the whole request is done (the request is in flight until then).
   */
  rollout(tasks: number, groupSize?: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startLiveRolloutService(
  opts: { turnMs?: [number, number] } = {},
): Promise<LiveRolloutService> {
  let gateway: ChildGateway | undefined;
  let sim: SimulatedLlm | undefined;
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child) await stopChild(child);
    await sim?.close();
    await gateway?.stop();
  };
  try {
    [gateway, sim] = await Promise.all([
      spawnGateway({
        servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
      }),
      startSimulatedLlm({
        policy: "search-then-answer",
        seed: 4,
        latency: { turnMs: opts.turnMs ?? [40, 80] },
      }),
    ]);
    const config = join(tempDir("rlf-live-rollout-"), "rollout.yaml");
    writeFileSync(
      config,
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
        `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS} }`,
        "rollout: { group_size: 2, max_turns: 3, max_concurrency: 2, sampling: { temperature: 0.8, max_tokens: 128 } }",
        "reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }] }",
        "seed: 3",
      ].join("\n"),
    );
    const proc = spawn(
      process.execPath,
      [RLF, "rollout", "serve", "--config", config, "--grpc-port", "0", "--http-port", "0"],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    const lines: string[] = [];
    createInterface({ input: proc.stderr! }).on("line", (l) => lines.push(l));
    const httpUrl = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on("line", (l) => {
        lines.push(l);
        if (l.includes("rollout service listening")) resolve((JSON.parse(l) as { http: string }).http);
      });
      proc.once("exit", (code) => reject(new Error(`rollout serve exited ${code}:\n${lines.join("\n")}`)));
    });
    const samples = readFileSync(SAMPLE_HOTPOTQA_TASKS, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; question: string; golden_answers: string[] });
    const rollout = async (tasks: number, groupSize = 2) => {
      const body = {
        group_size: groupSize,
        tasks: Array.from({ length: tasks }, (_, i) => {
          const s = samples[i % samples.length]!;
          return {
            id: `${s.id}-${i}`,
            data_source: "hotpotqa",
            prompt: [{ role: "user", content: s.question }],
            ground_truth: { target: s.golden_answers },
          };
        }),
      };
      const res = await fetch(`${httpUrl}/v1/rollout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`POST /v1/rollout answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { groups: unknown[] }).groups.length;
    };
    return { gateway, httpUrl, rollout, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
