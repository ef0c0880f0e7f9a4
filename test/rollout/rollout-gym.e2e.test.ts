// A Gymnasium task end to end: the rollout engine, the simulated inference server with the `replay`
// policy walking FrozenLake's known path (not slippery: right, right, down, down, down, right; one step
// per user turn), and a real gateway with `rlf env gym --id FrozenLake-v1` as server `lake`, the
// package as installed in the environments venv. The walk reaches the goal: every step's result is a
// plain-text grid, the final snapshot holds the environment's reward 1, and the task scores it
// (state_match on `reward`); a walk into a hole scores 0.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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
import { loadReplayTasks } from "@rlfactory/simulators/llm/policies/replay-tasks";
import { type InProcessGateway, RLF, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function haveGym(): boolean {
  const lib = join(BFCL_VENV, "lib");
  if (existsSync(lib) && readdirSync(lib).some((p) => existsSync(join(lib, p, "site-packages", "gymnasium"))))
    return true;
  const message = "rlf env gym: gymnasium is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A FrozenLake task whose user turns each ask for one step; the replay policy plays `actions`. */
function lakeTask(id: string, actions: number[]): Task {
  const step = (action: number) => [{ name: "step", arguments: { action } }];
  return {
    id,
    data_source: "frozenlake",
    prompt: [{ role: "user", content: `Walk from S to G on the frozen lake (task ${id}). Take one step.` }],
    ground_truth: step(actions[0]!),
    extra_info: {},
    turns: actions.slice(1).map((a) => ({ content: "Take the next step.", ground_truth: step(a) })),
    environment: { server: "lake", config: { seed: 0 } },
    tool_aliases: { step: "lake__step" },
  };
}

const GOAL = [2, 2, 1, 1, 1, 2];
const HOLE = [2, 1]; // right, then down into the hole at (1, 1)

describe.skipIf(!haveGym())("a FrozenLake rollout through rlf env gym", () => {
  let gateway: InProcessGateway;
  let sim: SimulatedLlm;
  let dir: string;
  const out = new Map<string, Trajectory>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rlf-gym-rollout-"));
    const tasks = [lakeTask("goal", GOAL), lakeTask("hole", HOLE)];
    const file = join(dir, "tasks.jsonl");
    writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join("\n"));
    [gateway, sim] = await Promise.all([
      startTestGateway({
        servers: {
          lake: {
            command: process.execPath,
            args: [
              RLF,
              "env",
              "gym",
              "--id",
              "FrozenLake-v1",
              "--kwargs",
              '{"is_slippery":false}',
              "--stdio",
            ],
          },
        },
      }),
      loadReplayTasks(file).then((replay) =>
        startSimulatedLlm({ policy: "replay", seed: 1, policyOptions: { tasks: replay } }),
      ),
    ]);
    const engine = await createRolloutEngine(
      parseRolloutConfig({
        inference: { engine: "vllm", urls: [sim.url] },
        gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
        format: "hermes",
        rollout: {
          group_size: 1,
          max_turns: 16,
          max_concurrency: 2,
          max_context_tokens: 16_384,
          sampling: { temperature: 0, top_p: 1, max_tokens: 256 },
        },
        reward: { components: [{ type: "state_match", checks: [{ path: "reward", equals: 1 }] }] },
        seed: 1,
      }),
      { episodes: gatewayEpisodes(gateway.client) },
    );
    try {
      for await (const group of engine.rollout(tasks))
        for (const t of group.trajectories) out.set(t.task_id, t);
    } finally {
      await engine.close();
    }
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    await gateway?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("walks the known path to the goal and scores the environment's reward 1", () => {
    const t = out.get("goal")!;
    const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls });
    expect(t.status, seen).toBe("completed");
    expect(t.tool_calls.map((c) => [c.name, c.arguments, c.error_code])).toEqual(
      GOAL.map((action) => ["step", { action }, null]),
    );
    // the model reads the grid as text, never a JSON-quoted string
    expect(t.tool_calls[0]!.result).toBe(
      "  (Right)\nS[F]FF\nFHFH\nFFFH\nHFFG\nobservation: 1\nreward 0, episode reward 0",
    );
    expect(t.tool_calls.at(-1)!.result).toContain(
      "HFF[G]\nobservation: 15\nreward 1, episode reward 1, episode over",
    );
    const env = t.metadata?.environment as EnvironmentRecord;
    expect(env.snapshots.at(-1)).toMatchObject({ final: true, state: { reward: 1, done: true, steps: 6 } });
    expect(t.reward_components).toEqual({ state_match: 1 });
    expect(t.reward).toBe(1);
  });

  it("a walk into a hole ends the episode without reward and scores 0", () => {
    const t = out.get("hole")!;
    expect(t.tool_calls.at(-1)!.result).toContain("episode over (terminated)");
    const env = t.metadata?.environment as EnvironmentRecord;
    expect(env.snapshots.at(-1)).toMatchObject({
      final: true,
      state: { reward: 0, terminated: true, observation: 5 },
    });
    expect(t.reward_components).toEqual({ state_match: 0 });
  });
});
