// `bfcl_response` on real rollouts: the simulated inference server (`converse` policy, real Qwen3
// tokenizer) + a real gateway with the key-value environment fixture as its stdio child; each user turn
// asks the model to append a value (alias `append` → `kv__append`, whose result is the log so far).
// The model's results are read per user turn from the trajectory's tool calls and `user_turns`; the
// ground truth's come from the replay `bfcl_state` shares (one replay episode per trajectory).
import { join } from "node:path";
import {
  createRolloutEngine,
  type EpisodeApi,
  gatewayEpisodes,
  parseRolloutConfig,
  type RolloutConfigInput,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let gateway: InProcessGateway;
let sim: SimulatedLlm;

beforeAll(async () => {
  [gateway, sim] = await Promise.all([
    startTestGateway({
      servers: {
        kv: {
          command: process.execPath,
          args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"],
        },
      },
    }),
    startSimulatedLlm({ policy: "converse", seed: 7, policyOptions: { tool: "append" } }),
  ]);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await gateway?.stop();
});

const appendCall = (value?: string) =>
  `call: ${JSON.stringify(value === undefined ? { key: "log" } : { key: "log", value })}`;

/** The model appends `values` (one per user turn); the ground truth appends `truth` (one per user turn). */
function task(id: string, values: (string | undefined)[], truth: string[]): Task {
  const calls = (v: string) => [{ name: "append", arguments: { key: "log", value: v } }];
  return {
    id,
    data_source: "e2e",
    prompt: [{ role: "user", content: appendCall(values[0]) }],
    ground_truth: calls(truth[0]!),
    extra_info: {},
    turns: values.slice(1).map((v, k) => ({ content: appendCall(v), ground_truth: calls(truth[k + 1]!) })),
    environment: { server: "kv", config: { initial: { seed: "s" } } },
    tool_aliases: { append: "kv__append" },
  };
}

function config(): RolloutConfigInput {
  return {
    inference: { engine: "vllm", urls: [sim.url] },
    gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
    format: "hermes",
    rollout: {
      group_size: 2,
      max_turns: 10,
      max_concurrency: 4,
      max_context_tokens: 8192,
      sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 128 },
    },
    reward: {
      components: [{ type: "bfcl_state" }, { type: "bfcl_response" }, { type: "task_completion" }],
    },
    seed: 11,
  };
}

describe("bfcl_response on rollouts with three user turns", () => {
  let trajectories: Trajectory[];
  const starts: string[] = [];
  beforeAll(async () => {
    const api = gatewayEpisodes(gateway.client);
    const episodes: EpisodeApi = {
      ...api,
      start(server, cfg) {
        starts.push(server);
        return api.start(server, cfg);
      },
    };
    const engine = await createRolloutEngine(parseRolloutConfig(config()), { episodes });
    try {
      trajectories = [];
      for await (const group of engine.rollout([
        task("right", ["a", "b", "c"], ["a", "b", "c"]),
        task("invalid-call", ["a", undefined, "c"], ["a", "b", "c"]),
        task("same-state", ["ab", "", "c"], ["a", "b", "c"]),
      ]))
        trajectories.push(...group.trajectories);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it("scores each trajectory against the ground truth's results, from one replay per trajectory", () => {
    expect(trajectories).toHaveLength(6);
    for (const t of trajectories) {
      const seen = JSON.stringify({ calls: t.tool_calls, error: t.reward_error });
      expect(t.tool_calls, seen).toHaveLength(3);
      expect(t.reward_components, seen).toEqual(
        {
          // the ground truth's results, {"value":"a"}, {"value":"ab"}, {"value":"abc"}, are the model's
          right: { bfcl_state: 1, bfcl_response: 1, task_completion: 1 },
          // user turn 1's call is refused (no value): its state and its result {"value":"ab"} are missing
          "invalid-call": { bfcl_state: 0, bfcl_response: 0, task_completion: 1 / 3 },
          // "ab" then "" then "c": turn 0's state and result ({"value":"ab"}) are not the ground
          // truth's; turn 1 reaches its state, and finds its result {"value":"ab"} among turn 0's
          "same-state": { bfcl_state: 0, bfcl_response: 0, task_completion: 2 / 3 },
        }[t.task_id],
      );
    }
    // 3 groups: 3 starts for the rollouts + one replay per trajectory (the three components share it)
    expect(starts).toHaveLength(3 + 6);
  });
});
