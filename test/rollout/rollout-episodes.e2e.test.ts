// Tasks with an environment, end to end: the simulated inference server (`converse` policy, real Qwen3
// tokenizer) + a real gateway with the key-value environment fixture (test/support/src/kv-environment.ts)
// as its stdio child. The model calls the alias `append` (→ `kv__append`). Checks: one StartEpisode and
// one ForkEpisode(n) per group, every sample's state its own, a snapshot per user turn plus the final
// one, state_match / tool_precision on known trajectories, the environment server killed mid-trajectory
// → `failed` with EPISODE_LOST and not scored, and no episode left live afterwards.
import { join } from "node:path";
import {
  createRolloutEngine,
  createSampler,
  type EnvironmentRecord,
  type EpisodeApi,
  gatewayEpisodes,
  parseRolloutConfig,
  type RolloutConfigInput,
  type Task,
  type TokenSampler,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type InProcessGateway,
  ROOT,
  startTestGateway,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { childrenWithEnv } from "@rlfactory/test-support/process-tree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROLE = "RLF_TEST_ENV_ROLE";

let gateway: InProcessGateway;
let sim: SimulatedLlm;

/** The kv server processes this test's gateway spawned (children of this process with our role). */
function kvServerPids(): number[] {
  return childrenWithEnv(`${ROLE}=episodes-e2e`);
}

/** Episode RPCs as the engine made them. */
function countingEpisodes(api: EpisodeApi, log: string[]): EpisodeApi {
  return {
    start(server, config) {
      log.push(`start ${server}`);
      return api.start(server, config);
    },
    fork(id, count) {
      log.push(`fork ${count}`);
      return api.fork(id, count);
    },
    snapshot(id) {
      log.push("snapshot");
      return api.snapshot(id);
    },
    end(id) {
      log.push("end");
      return api.end(id);
    },
  };
}

const STATE_COMPONENTS = [
  {
    type: "state_match",
    checks: [
      { path: "$.log", equals: "abc" },
      { path: "$.seed", equals: "s" },
    ],
  },
  { type: "tool_precision" },
];

function config(groupSize: number, components: unknown[] = STATE_COMPONENTS): RolloutConfigInput {
  return {
    inference: { engine: "vllm", urls: [sim.url] },
    gateway: { address: gateway.gateway.grpcAddress, deadline_ms: 30_000 },
    format: "hermes",
    rollout: {
      group_size: groupSize,
      max_turns: 10,
      max_concurrency: 8,
      max_context_tokens: 8192,
      sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 128 },
    },
    reward: { components: components as never },
    seed: 11,
  };
}

const appendCall = (value?: string) =>
  `call: ${JSON.stringify(value === undefined ? { key: "log" } : { key: "log", value })}`;

/** The model appends `values` (one per user turn); the ground truth appends a, b, c. */
function task(id: string, values: (string | undefined)[]): Task {
  const truth = (v: string) => [{ name: "append", arguments: { key: "log", value: v } }];
  return {
    id,
    data_source: "e2e",
    prompt: [{ role: "user", content: appendCall(values[0]) }],
    ground_truth: truth("a"),
    extra_info: {},
    turns: values.slice(1).map((v, k) => ({ content: appendCall(v), ground_truth: truth("bc"[k]!) })),
    environment: { server: "kv", config: { initial: { seed: "s" } } },
    tool_aliases: { append: "kv__append" },
  };
}

async function rollOut(
  raw: RolloutConfigInput,
  batch: Task[],
  parts: { sampler?: TokenSampler } = {},
  signal?: AbortSignal,
) {
  const calls: string[] = [];
  const engine = await createRolloutEngine(parseRolloutConfig(raw), {
    ...parts,
    episodes: countingEpisodes(gatewayEpisodes(gateway.client), calls),
  });
  try {
    const out: Trajectory[] = [];
    for await (const group of engine.rollout(batch, signal === undefined ? {} : { signal }))
      out.push(...group.trajectories);
    return { trajectories: out, calls };
  } finally {
    await engine.close();
  }
}

const environmentOf = (t: Trajectory) => t.metadata?.environment as EnvironmentRecord;
const metric = async (name: string) => {
  const text = await (await fetch(`${gateway.gateway.adminUrl}/metrics`)).text();
  // a counter no event has touched yet is not exported: 0
  return Number(new RegExp(`^${name}\\{server="kv"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
};

beforeAll(async () => {
  [gateway, sim] = await Promise.all([
    startTestGateway({
      servers: {
        kv: {
          command: process.execPath,
          args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"],
          env: { [ROLE]: "episodes-e2e" },
          policy: { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 } },
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

describe("a task with an environment and three scripted user turns, group of 4", () => {
  let trajectories: Trajectory[];
  let calls: string[];
  beforeAll(async () => {
    ({ trajectories, calls } = await rollOut(config(4), [task("kv-abc", ["a", "b", "c"])]));
  }, 90_000);

  it("starts the episode once and forks it into the group's 4 samples; every episode is ended", async () => {
    expect(calls.filter((c) => c.startsWith("start") || c.startsWith("fork"))).toEqual([
      "start kv",
      "fork 4",
    ]);
    expect(calls.filter((c) => c === "end")).toHaveLength(5); // the parent and each sample's fork
    expect(await metric("rlf_gateway_episodes_started_total")).toBe(1);
    expect(await metric("rlf_gateway_episodes_forked_total")).toBe(4);
    expect(await metric("rlf_gateway_episodes_live")).toBe(0);
  });

  it("runs each sample in its own copy: a snapshot per user turn, the final state its own", () => {
    expect(trajectories).toHaveLength(4);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls, env: environmentOf(t) });
      expect([t.status, t.status_reason], seen).toEqual(["completed", "no_action"]);
      // the model called the alias; the gateway ran kv__append in this sample's episode
      expect(
        t.tool_calls.map((c) => [c.name, c.error_code]),
        seen,
      ).toEqual([
        ["append", null],
        ["append", null],
        ["append", null],
      ]);
      // shared state would have interleaved the group's appends ("aaaab…")
      expect(environmentOf(t), seen).toEqual({
        server: "kv",
        snapshots: [
          { user_turn: 0, state: { seed: "s", log: "a" } },
          { user_turn: 1, state: { seed: "s", log: "ab" } },
          { user_turn: 2, final: true, state: { seed: "s", log: "abc" } },
        ],
      });
      expect(t.reward_components).toEqual({ state_match: 1, tool_precision: 1 });
      expect(t.reward).toBe(2);
    }
  });
});

describe("rewards on known trajectories", () => {
  it("an invalid call (missing argument) and a state off the checks: tool_precision 2/3, state_match 1/2", async () => {
    const { trajectories } = await rollOut(config(2), [task("kv-invalid", ["a", undefined, "c"])]);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls, error: t.reward_error });
      expect(
        t.tool_calls.map((c) => c.error_code),
        seen,
      ).toEqual([null, "INVALID_ARGUMENTS", null]);
      expect(environmentOf(t).snapshots.at(-1), seen).toEqual({
        user_turn: 2,
        final: true,
        state: { seed: "s", log: "ac" },
      });
      expect(t.reward_components, seen).toEqual({ state_match: 0.5, tool_precision: 2 / 3 });
    }
    expect(await metric("rlf_gateway_episodes_live")).toBe(0);
  }, 90_000);

  it("a final state over rollout.max_snapshot_bytes: stored as a marker, state_match's reward_error, reward null", async () => {
    const raw = config(1);
    raw.rollout = { ...raw.rollout, max_snapshot_bytes: 16 };
    const { trajectories } = await rollOut(raw, [task("kv-big", ["a", "b", "c"])]);
    const [t] = trajectories;
    expect(t?.status).toBe("completed");
    expect(environmentOf(t!).snapshots.at(-1)).toEqual({
      user_turn: 2,
      final: true,
      truncated: true,
      bytes: Buffer.byteLength(JSON.stringify({ seed: "s", log: "abc" })),
    });
    expect(t!.reward).toBeNull();
    expect(t!.reward_error).toMatchObject({ component: "state_match", code: "SNAPSHOT_TRUNCATED" });
  }, 90_000);

  it("a state over rollout.max_snapshot_bytes whose change fits: stored as a diff against the initial state, state_match reads it rebuilt", async () => {
    const raw = config(2);
    raw.rollout = { ...raw.rollout, max_snapshot_bytes: 200 };
    const big = { ...task("kv-diff", ["a", "b", "c"]) };
    const initial = { seed: "s", pad: "x".repeat(4_000) };
    big.environment = { server: "kv", config: { initial } };
    const { trajectories } = await rollOut(raw, [big]);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      const last = environmentOf(t).snapshots.at(-1) as Record<string, unknown>;
      expect(last).toMatchObject({
        user_turn: 2,
        final: true,
        diff: [{ op: "add", path: "/log", value: "abc" }],
        bytes: Buffer.byteLength(JSON.stringify({ ...initial, log: "abc" })),
      });
      expect(Buffer.byteLength(JSON.stringify(last))).toBeLessThan(200);
      expect([t.reward_error ?? null, t.reward_components]).toEqual([
        null,
        { state_match: 1, tool_precision: 1 },
      ]);
    }
  }, 90_000);
});

describe("bfcl_state and task_completion: the ground truth replayed in a fresh episode", () => {
  it("compares each user turn's stored state with the replay's: all turns → 1, a wrong turn 1 → 0 and 1/3", async () => {
    const { trajectories, calls } = await rollOut(
      config(2, [{ type: "bfcl_state" }, { type: "task_completion" }]),
      [task("kv-right", ["a", "b", "c"]), task("kv-wrong", ["a", undefined, "c"])],
    );
    expect(trajectories).toHaveLength(4);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, error: t.reward_error, env: environmentOf(t) });
      expect(t.reward_components, seen).toEqual(
        t.task_id === "kv-right"
          ? { bfcl_state: 1, task_completion: 1 }
          : { bfcl_state: 0, task_completion: 1 / 3 },
      );
    }
    // 2 groups: 2 starts for the rollout + one replay per trajectory (both components share it)
    expect(calls.filter((c) => c.startsWith("start"))).toHaveLength(2 + 4);
    expect(await metric("rlf_gateway_episodes_live")).toBe(0);
  }, 90_000);
});

describe("every episode is ended, whatever the ending", () => {
  it("max_turns reached (truncated) and a cancelled request (aborted): ended, none left live", async () => {
    const short = config(2);
    short.rollout = { ...short.rollout, max_turns: 3 };
    const truncated = await rollOut(short, [task("kv-short", ["a", "b", "c"])]);
    for (const t of truncated.trajectories) {
      expect([t.status, t.status_reason]).toEqual(["truncated", "max_turns (3) reached"]);
      expect(environmentOf(t).snapshots.at(-1)).toEqual({
        user_turn: 1,
        final: true,
        state: { seed: "s", log: "a" }, // the third turn's call to append "b" is never made
      });
    }
    expect(truncated.calls.filter((c) => c === "end")).toHaveLength(3);

    // cancelled at the third generate request: every sample is in the middle of its conversation
    const raw = config(2);
    const made = createSampler(parseRolloutConfig(raw).inference);
    if (!made.trainable) throw new Error("vllm samplers are trainable");
    const inner = made;
    const cancel = new AbortController();
    let requests = 0;
    const sampler: TokenSampler = {
      trainable: true,
      kind: inner.kind,
      generate(request) {
        requests += 1;
        if (requests === 3) cancel.abort();
        return inner.generate(request);
      },
      close: () => inner.close(),
    };
    const aborted = await rollOut(raw, [task("kv-cancelled", ["a", "b", "c"])], { sampler }, cancel.signal);
    expect(aborted.trajectories.map((t) => t.status)).toEqual(["aborted", "aborted"]);
    expect(aborted.calls.filter((c) => c === "end")).toHaveLength(3);
    expect(await metric("rlf_gateway_episodes_live")).toBe(0);
  }, 90_000);
});

describe("an episode that cannot be started", () => {
  it("fails every sample of the group with the gateway's code, unscored, before any generation", async () => {
    const before = sim.requests.length;
    const bad = { ...task("kv-nowhere", ["a"]), environment: { server: "nowhere", config: {} } };
    const { trajectories, calls } = await rollOut(config(2), [bad]);
    expect(calls).toEqual(["start nowhere"]);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      expect(t.status).toBe("failed");
      expect(t.status_reason).toMatch(/^environment [A-Z_]+: StartEpisode: /);
      expect([t.reward, t.turns]).toEqual([null, []]);
    }
    expect(sim.requests.length).toBe(before);
  }, 60_000);
});

describe("the environment server killed mid-trajectory", () => {
  it("ends the trajectories `failed` with EPISODE_LOST, unscored; no episode is left live", async () => {
    // One sample, so nothing is in flight at the kill (an operation on its way then answers UNAVAILABLE).
    const raw = config(1);
    const made = createSampler(parseRolloutConfig(raw).inference);
    if (!made.trainable) throw new Error("vllm samplers are trainable");
    const inner = made;
    let requests = 0;
    let killed = false;
    // Before the third generate request (user turn 0 done and snapshotted, user turn 1 appended), kill
    // the kv server and let the gateway see it go: the turn's call then meets EPISODE_LOST.
    const sampler: TokenSampler = {
      trainable: true,
      kind: inner.kind,
      async generate(request) {
        requests += 1;
        if (requests === 3 && !killed) {
          killed = true;
          const [pid] = kvServerPids();
          expect(pid).toBeDefined();
          process.kill(pid!, "SIGKILL");
          await waitFor(
            () => gateway.gateway.episodes.liveCounts().get("kv") === 0,
            20_000,
            "the gateway to see the kv server go",
          );
        }
        return inner.generate(request);
      },
      close: () => inner.close(),
    };
    const lostBefore = await metric("rlf_gateway_episodes_lost_total");
    const { trajectories } = await rollOut(raw, [task("kv-killed", ["a", "b", "c"])], { sampler });
    expect(killed).toBe(true);
    expect(trajectories).toHaveLength(1);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls });
      expect(t.status, seen).toBe("failed");
      expect(environmentOf(t).snapshots).toEqual([{ user_turn: 0, state: { seed: "s", log: "a" } }]);
      expect(t.status_reason, seen).toMatch(/^environment EPISODE_LOST: /);
      expect([t.reward, t.reward_components, t.reward_error ?? null, t.advantage]).toEqual([
        null,
        {},
        null,
        null,
      ]);
    }
    expect(await metric("rlf_gateway_episodes_lost_total")).toBe(lostBefore + 1);
    expect(await metric("rlf_gateway_episodes_live")).toBe(0);
    // the respawned server serves the next group
    await waitFor(() => kvServerPids().length === 1, 30_000, "the kv server's respawn");
    await waitFor(
      () => gateway.gateway.upstreams.find((u) => u.name === "kv")?.state === "ready",
      30_000,
      "kv ready",
    );
    const { trajectories: after } = await rollOut(config(1), [task("kv-after", ["a", "b", "c"])]);
    expect(after.map((t) => [t.status, t.reward])).toEqual([["completed", 2]]);
  }, 120_000);
});
