// A run directory written by a real `rlf rollout`: a child gateway with the bundled search server,
// the simulated LLM (search-then-answer) and the sample HotpotQA tasks, as rollout-cli.e2e runs it.
// The gateway stays up (its admin API has served the run's tool calls) until stop().
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { SAMPLE_HOTPOTQA_TASKS } from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "./gateway-harness.ts";

export interface RolloutRun {
  gateway: ChildGateway;
  /** `${runsDir}/${name}`: trajectories.jsonl, trajectories.parquet, summary.json, report.html. */
  runDir: string;
  stop(): Promise<void>;
}

/** Runs `rlf rollout` over `tasks` HotpotQA tasks × `groupSize` samples into runsDir/name. */
export async function writeRolloutRun(
  runsDir: string,
  name: string,
  opts: {
    tasks?: number;
    groupSize?: number;
    /** More servers for the same gateway (gateway config `servers` entries), e.g. an environment. */
    servers?: Record<string, unknown>;
    /** `reward.process` (per-turn process rewards, e.g. `{tool_success: 0.2}`): records carry `turn_rewards`. */
    processRewards?: Record<string, number>;
  } = {},
): Promise<RolloutRun> {
  let gateway: ChildGateway | undefined;
  let sim: SimulatedLlm | undefined;
  const stop = async () => {
    await sim?.close();
    await gateway?.stop();
  };
  try {
    [gateway, sim] = await Promise.all([
      spawnGateway({
        servers: {
          search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] },
          ...opts.servers,
        },
      }),
      startSimulatedLlm({ policy: "search-then-answer", seed: 4 }),
    ]);
    const config = join(tempDir("rlf-rollout-run-"), "rollout.yaml");
    writeFileSync(
      config,
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
        `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS}, limit: ${opts.tasks ?? 2} }`,
        `rollout: { group_size: ${opts.groupSize ?? 2}, max_turns: 3, sampling: { temperature: 0.8, max_tokens: 128 } }`,
        `reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }]${
          opts.processRewards ? `, process: ${JSON.stringify(opts.processRewards)}` : ""
        } }`,
        "seed: 3",
      ].join("\n"),
    );
    const runDir = join(runsDir, name);
    await promisify(execFile)(process.execPath, [RLF, "rollout", "--config", config, "--out", runDir], {
      cwd: ROOT,
      timeout: 90_000,
    });
    return { gateway, runDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
