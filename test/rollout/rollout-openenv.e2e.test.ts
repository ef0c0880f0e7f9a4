// An OpenEnv environment in a rollout, end to end: the simulated inference server (`converse` policy)
// + a real gateway with `rlf env openenv --env echo_env` (test/support/python/openenv) as its stdio
// child. The model calls the alias `echo` (→ `echo_env__echo`) once per user turn; the group's samples
// are forks of the reset episode (replayed); `env_reward` scores the episode's summed step rewards.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BFCL_VENV } from "@rlfactory/environments";
import {
  createRolloutEngine,
  type EnvironmentRecord,
  gatewayEpisodes,
  parseRolloutConfig,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, RLF, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function haveOpenEnv(): boolean {
  const lib = join(BFCL_VENV, "lib");
  const installed = (python: string) =>
    existsSync(join(lib, python, "site-packages/openenv/core/env_server/interfaces.py"));
  if (existsSync(lib) && readdirSync(lib).some(installed)) return true;
  const message = "rollout on rlf env openenv: openenv is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const call = (message: string) => `call: ${JSON.stringify({ message })}`;

describe.skipIf(!haveOpenEnv())("a rollout on an OpenEnv environment (echo_env), group of 3", () => {
  let gateway: InProcessGateway;
  let sim: SimulatedLlm;
  let trajectories: Trajectory[];

  beforeAll(async () => {
    [gateway, sim] = await Promise.all([
      startTestGateway({
        servers: {
          echo_env: {
            command: process.execPath,
            args: [
              RLF,
              "env",
              "openenv",
              "--env",
              "echo_env",
              "--path",
              join(ROOT, "test/support/python/openenv"),
            ].concat(["--workers", "1", "--stdio"]),
          },
        },
      }),
      startSimulatedLlm({ policy: "converse", seed: 7, policyOptions: { tool: "echo" } }),
    ]);
    const task: Task = {
      id: "echo-hello-hi",
      data_source: "e2e",
      prompt: [{ role: "user", content: call("hello") }],
      ground_truth: [],
      extra_info: {},
      turns: [{ content: call("hi") }],
      environment: { server: "echo_env", config: { seed: 1 } },
      tool_aliases: { echo: "echo_env__echo" },
    };
    const engine = await createRolloutEngine(
      parseRolloutConfig({
        inference: { engine: "vllm", urls: [sim.url] },
        gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
        format: "hermes",
        rollout: { group_size: 3, max_turns: 6, max_context_tokens: 8192, sampling: { max_tokens: 128 } },
        reward: { components: [{ type: "env_reward" }] },
        seed: 11,
      }),
      { episodes: gatewayEpisodes(gateway.client) },
    );
    trajectories = [];
    try {
      for await (const group of engine.rollout([task])) trajectories.push(...group.trajectories);
    } finally {
      await engine.close();
    }
  }, 180_000);
  afterAll(async () => {
    await sim?.close();
    await gateway?.stop();
  });

  it("each sample steps its own episode; the observation text reaches the model; env_reward is the summed reward", () => {
    expect(trajectories).toHaveLength(3);
    for (const t of trajectories) {
      const seen = JSON.stringify({
        status: t.status_reason,
        calls: t.tool_calls,
        env: t.metadata?.environment,
      });
      expect(t.status, seen).toBe("completed");
      expect(
        t.tool_calls.map((c) => [c.name, c.error_code, c.result]),
        seen,
      ).toEqual([
        ["echo", null, expect.stringContaining("echoed_message: hello\nmessage_length: 5")],
        ["echo", null, expect.stringContaining("echoed_message: hi\nmessage_length: 2")],
      ]);
      const environment = t.metadata?.environment as EnvironmentRecord;
      expect(environment.snapshots.at(-1)).toMatchObject({
        final: true,
        state: { reward: 0.7, steps: 2, state: { step_count: 2 } },
      });
      expect([t.reward_components, t.reward]).toEqual([{ env_reward: 0.7 }, 0.7]);
    }
  });
});
