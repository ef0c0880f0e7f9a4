// A run directory written by a real `rlf rollout`: a child gateway with the bundled search server,
// the simulated LLM (search-then-answer) and the sample HotpotQA tasks, as rollout-cli.e2e runs it.
// The gateway stays up (its admin API has served the run's tool calls) until stop(). writeRun is the
// same for other servers, policies and configs (image-rollout.ts).
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { SAMPLE_HOTPOTQA_TASKS } from "@rlfactory/rollout";
import { type SimulatedLlm, type SimulatedLlmOptions, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "./gateway-harness.ts";

export interface RolloutRun {
  gateway: ChildGateway;
  /** `${runsDir}/${name}`: trajectories.jsonl, trajectories.parquet, summary.json, report.html. */
  runDir: string;
  stop(): Promise<void>;
}

/** Runs `rlf rollout` over `tasks` HotpotQA tasks × `groupSize` samples into runsDir/name. */
export function writeRolloutRun(
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
  return writeRun(runsDir, name, {
    servers: {
      search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] },
      ...opts.servers,
    },
    llm: { policy: "search-then-answer", seed: 4 },
    config: (sim, gateway) => [
      `inference: { engine: vllm, urls: [${sim.url}] }`,
      `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
      `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS}, limit: ${opts.tasks ?? 2} }`,
      `rollout: { group_size: ${opts.groupSize ?? 2}, max_turns: 3, sampling: { temperature: 0.8, max_tokens: 128 } }`,
      `reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }]${
        opts.processRewards ? `, process: ${JSON.stringify(opts.processRewards)}` : ""
      } }`,
      "seed: 3",
    ],
  });
}

export interface RunSetup {
  /** The gateway config's `servers`. */
  servers: Record<string, unknown>;
  /** The simulated LLM, the policy. */
  llm: SimulatedLlmOptions;
  /** rollout.yaml's lines for this LLM and gateway; `dir`, a fresh folder for other files (a dataset). */
  config: (sim: SimulatedLlm, gateway: ChildGateway, dir: string) => string[];
}

/**
 * A child gateway serving `setup.servers` and the simulated LLM, then `rlf rollout --config
 * (setup.config) --out runsDir/name`; on failure both are stopped.
 */
export async function writeRun(runsDir: string, name: string, setup: RunSetup): Promise<RolloutRun> {
  let gateway: ChildGateway | undefined;
  let sim: SimulatedLlm | undefined;
  const stop = async () => {
    await sim?.close();
    await gateway?.stop();
  };
  try {
    [gateway, sim] = await Promise.all([
      spawnGateway({ servers: setup.servers }),
      startSimulatedLlm(setup.llm),
    ]);
    const dir = tempDir("rlf-rollout-run-");
    const config = join(dir, "rollout.yaml");
    writeFileSync(config, setup.config(sim, gateway, dir).join("\n"));
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
