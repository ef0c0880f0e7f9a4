// A verifiers environment in a rollout, end to end: `rlf data verifiers` writes the taskset's tasks
// (test/support/python/verifiers/counter_env.py, each prompt ending `call: {"amount": 3}`), the
// simulated inference server (`converse` policy) calls the alias `add` (→ `counter__counter_add`) once,
// through a real gateway with `rlf env verifiers --taskset` as its stdio child; the group's samples are
// forks of the task's episode; `env_reward` scores the task's rubric (`reached`: count == target), run in
// the environment host on the episode's final state: 1 on count-to-3, 0 on count-to-5.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
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
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENVS = join(ROOT, "test/support/python/verifiers");
const CONFIG = JSON.stringify({ targets: [3, 5], first_step: 3 });

function haveVerifiers(): boolean {
  const lib = join(BFCL_VENV, "lib");
  const installed = (python: string) =>
    existsSync(join(lib, python, "site-packages/verifiers/v1/taskset.py"));
  if (existsSync(lib) && readdirSync(lib).some(installed)) return true;
  const message = "rollout on rlf env verifiers: verifiers is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

describe.skipIf(!haveVerifiers())(
  "a rollout on a verifiers environment (its rubric as env_reward), group of 2",
  () => {
    let gateway: InProcessGateway;
    let sim: SimulatedLlm;
    let tasks: Task[];
    let trajectories: Trajectory[];

    beforeAll(async () => {
      const out = join(tempDir(), "tasks.jsonl");
      const data = ["data", "verifiers", "--taskset", "counter_env:CounterTaskset", "--config", CONFIG];
      await promisify(execFile)(process.execPath, [
        RLF,
        ...data,
        "--path",
        ENVS,
        "--server",
        "counter",
        "--out",
        out,
      ]);
      tasks = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((line) => ({ ...(JSON.parse(line) as Task), tool_aliases: { add: "counter__counter_add" } }));
      [gateway, sim] = await Promise.all([
        startTestGateway({
          servers: {
            counter: {
              command: process.execPath,
              args: [
                RLF,
                "env",
                "verifiers",
                "--taskset",
                "counter_env:CounterTaskset",
                "--config",
                CONFIG,
              ].concat(["--path", ENVS, "--name", "counter", "--workers", "1", "--stdio"]),
            },
          },
        }),
        startSimulatedLlm({ policy: "converse", seed: 7, policyOptions: { tool: "add" } }),
      ]);
      const engine = await createRolloutEngine(
        parseRolloutConfig({
          inference: { engine: "vllm", urls: [sim.url] },
          gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
          format: "hermes",
          rollout: { group_size: 2, max_turns: 4, max_context_tokens: 8192, sampling: { max_tokens: 128 } },
          reward: { components: [{ type: "env_reward" }] },
          seed: 11,
        }),
        { episodes: gatewayEpisodes(gateway.client) },
      );
      trajectories = [];
      try {
        for await (const group of engine.rollout(tasks)) trajectories.push(...group.trajectories);
      } finally {
        await engine.close();
      }
    }, 180_000);
    afterAll(async () => {
      await sim?.close();
      await gateway?.stop();
    });

    it("rlf data verifiers writes one rollout task per taskset task, each in an episode on its task", () => {
      expect(tasks.map((t) => [t.id, t.environment, t.prompt.at(-1)?.content])).toEqual([
        [
          "count-to-3",
          { server: "counter", config: { task: 0 } },
          'Count to 3 with the add tool.\ncall: {"amount": 3}',
        ],
        [
          "count-to-5",
          { server: "counter", config: { task: 1 } },
          'Count to 5 with the add tool.\ncall: {"amount": 3}',
        ],
      ]);
    });

    it("each sample calls the toolset in its own rollout state; env_reward is the task's rubric", () => {
      expect(trajectories).toHaveLength(4);
      const byTask = new Map<string, (number | null)[]>();
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
        ).toEqual([["add", null, "count is 3"]]);
        const environment = t.metadata?.environment as EnvironmentRecord;
        expect(environment.snapshots.at(-1)).toMatchObject({
          final: true,
          state: { state: { count: 3, history: [3] } },
        });
        byTask.set(t.task_id, [...(byTask.get(t.task_id) ?? []), t.reward]);
      }
      expect(Object.fromEntries(byTask)).toEqual({ "count-to-3": [1, 1], "count-to-5": [0, 0] });
    });
  },
);
