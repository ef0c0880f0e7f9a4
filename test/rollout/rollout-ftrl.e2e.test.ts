// FTRL's per-turn solve reward recorded by the rollout engine, end to end: the simulated inference
// server (vLLM protocol, real Qwen3 tokenizer, the `replay` policy playing the task's calls) + a real
// gateway + the real calculator tool server, called under the alias `calc`. A two-user-turn task: two
// parallel calls, a reply, the scripted second user message, one call, the answer. Checks: each
// trajectory's `turn_rewards` holds the hand-computed `ftrl_solve` value on each sampled turn (0 on the
// observation turns), `reward` is their mean, and the values survive the JSONL record; and, through
// `rlf rollout serve`'s service (gRPC and HTTP), the group stats and the request's log line carry the
// mean turn reward per sampled turn.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { RolloutClient, type TrajectoryGroupJson } from "@rlfactory/clients";
import {
  appendTrajectoriesJsonl,
  createRolloutEngine,
  parseRolloutConfig,
  type RolloutEngine,
  readTrajectoriesJsonl,
  startRolloutService,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, RLF, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CALC = "calculator__calculate";
const calc = (expression: string) => ({ name: "calc", arguments: { expression } });

const TASK: Task = {
  id: "ftrl-two-turns",
  data_source: "e2e",
  prompt: [{ role: "user", content: "What are 6 * 7 and 2 + 3?" }],
  // the final answer; the replay policy's replies say "Done."
  ground_truth: "done",
  // sub-answers by the name the model calls (the alias), in order
  extra_info: { unsolved_set: { calc: ["42", "40 + 2 = 42"], search: ["Paris"] } },
  tool_aliases: { calc: CALC },
  turns: [{ content: "Check 40 + 2 too." }],
};

/** What the replay policy plays: the calls of each user turn (model-visible names). */
const REPLAY = {
  id: TASK.id,
  prompt: TASK.prompt,
  ground_truth: [calc("6 * 7"), calc("2 + 3")],
  turns: [{ content: "Check 40 + 2 too.", ground_truth: [calc("40 + 2")] }],
};

// By hand (f1 = 2s/(n+1); a turn without a call holding the final answer: 1/(1 + #unsolved)):
//   turn 0  calc "6 * 7 = 42" solves "42", calc "2 + 3 = 5" solves nothing: s 1, n 2 → 2/3 (2 left)
//   turn 1  the tool results (observation) → 0
//   turn 2  "Done." holds the final answer, 2 unsolved → 1/3
//   turn 3  the second user message (observation) → 0
//   turn 4  calc "40 + 2 = 42": "42" is solved already, "40 + 2 = 42" is not: s 1, n 1 → 1 (1 left)
//   turn 5  the tool result (observation) → 0
//   turn 6  "<answer>Done.</answer>", 1 unsolved ("Paris", no search call) → 1/2
const TURN_REWARDS = [2 / 3, 0, 1 / 3, 0, 1, 0, 1 / 2];
const MEAN = (2 / 3 + 1 / 3 + 1 + 1 / 2) / 4;

let gateway: InProcessGateway;
let sim: SimulatedLlm;
let trajectories: Trajectory[];
let dir: string;

const round = (v: number) => Math.round(v * 1e9) / 1e9;

beforeAll(async () => {
  [gateway, sim, dir] = await Promise.all([
    startTestGateway({
      servers: { calculator: { command: process.execPath, args: [RLF, "tool", "calculator", "--stdio"] } },
    }),
    startSimulatedLlm({ policy: "replay", seed: 5, policyOptions: { tasks: [REPLAY] } }),
    mkdtemp(join(tmpdir(), "rlf-ftrl-")),
  ]);
  const engine = await ftrlEngine();
  try {
    trajectories = [];
    for await (const group of engine.rollout([TASK])) trajectories.push(...group.trajectories);
  } finally {
    await engine.close();
  }
}, 60_000);

function ftrlEngine(): Promise<RolloutEngine> {
  return createRolloutEngine(
    parseRolloutConfig({
      inference: { engine: "vllm", urls: [sim.url] },
      gateway: { address: gateway.gateway.grpcAddress, tools: [CALC], deadline_ms: 30_000 },
      format: "hermes",
      rollout: {
        group_size: 2,
        max_turns: 8,
        max_concurrency: 4,
        max_context_tokens: 8192,
        sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 256 },
      },
      reward: {
        components: [
          { type: "ftrl_solve", weight: 1 },
          { type: "exact_match", weight: 0 },
        ],
      },
      seed: 3,
    }),
  );
}

afterAll(async () => {
  await sim?.close();
  await gateway?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("ftrl_solve in a rollout", () => {
  it("runs the task: 3 calls in 2 sampled turns, a reply, the second user turn, the answer", () => {
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls, error: t.reward_error });
      expect([t.status, t.status_reason], seen).toEqual(["completed", "answer"]);
      expect(t.turns.map((x) => x.kind[0]).join(""), seen).toBe("sososos");
      expect(
        t.tool_calls.map((c) => [c.name, c.result.trim(), c.error_code, c.turn]),
        seen,
      ).toEqual([
        ["calc", "6 * 7 = 42", null, 0],
        ["calc", "2 + 3 = 5", null, 0],
        ["calc", "40 + 2 = 42", null, 4],
      ]);
    }
  });

  it("records the hand-computed value of each sampled turn in turn_rewards, and their mean as the reward", () => {
    for (const t of trajectories) {
      expect(t.reward_error ?? null).toBeNull();
      expect(t.turn_rewards?.map(round)).toEqual(TURN_REWARDS.map(round));
      expect(round(t.reward_components.ftrl_solve!)).toBe(round(MEAN));
      expect(t.reward_components.exact_match).toBe(1);
      expect(round(t.reward!)).toBe(round(MEAN));
    }
  });

  it("keeps the per-turn values in the JSONL record", async () => {
    const path = join(dir, "trajectories.jsonl");
    await appendTrajectoriesJsonl(path, trajectories);
    const back = await readTrajectoriesJsonl(path);
    expect(back.map((t) => t.turn_rewards)).toEqual(trajectories.map((t) => t.turn_rewards));
  });
});

describe("ftrl_solve through the rollout service", () => {
  // the mean turn reward of sampled turns 1..4 over the group (both samples play the same calls)
  const MEANS = [2 / 3, 1 / 3, 1, 1 / 2].map(round);
  const lines: Record<string, unknown>[] = [];
  let engine: RolloutEngine;
  let service: Awaited<ReturnType<typeof startRolloutService>>;

  beforeAll(async () => {
    engine = await ftrlEngine();
    const log = pino(
      { level: "info" },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    service = await startRolloutService(engine, { grpcPort: 0, httpPort: 0, log });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await engine?.close();
  });

  it("reports the mean turn reward per sampled turn in the group stats, over HTTP and gRPC", async () => {
    const res = await fetch(`${service.httpUrl}/v1/rollout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tasks: [TASK], group_size: 2 }),
    });
    expect(res.status).toBe(200);
    const { groups } = (await res.json()) as { groups: TrajectoryGroupJson[] };
    expect(groups).toHaveLength(1);
    expect(groups[0]!.stats.turn_reward_mean?.map(round)).toEqual(MEANS);

    const client = new RolloutClient(service.grpcAddress);
    try {
      const [group] = await client.rolloutBatch({ tasks: [TASK], group_size: 2 });
      expect(group!.stats.turn_reward_mean?.map(round)).toEqual(MEANS);
      expect(group!.trajectories.map((t) => t.turn_rewards?.map(round))).toEqual([
        TURN_REWARDS.map(round),
        TURN_REWARDS.map(round),
      ]);
    } finally {
      client.close();
    }
  });

  it("logs them on each request's line", async () => {
    // one line per request above, once each has finished (the test awaited both)
    const done = lines.filter((l) => l.msg === "rollout done");
    expect(done.map((l) => l.via)).toHaveLength(2);
    for (const l of done) expect((l.turn_reward_mean as number[]).map(round)).toEqual(MEANS);
  });
});
