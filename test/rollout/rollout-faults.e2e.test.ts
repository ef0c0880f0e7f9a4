// Faults during a rollout: the search tool server hangs (SIGSTOP) and then dies (SIGKILL) mid-run;
// the inference server goes away mid-run. Every trajectory must still come back, with a status and
// the error codes of its calls; the run must not crash and none may be lost.
import { type ChildProcess, spawn } from "node:child_process";
import {
  createRolloutEngine,
  loadTasks,
  parseRolloutConfig,
  type RolloutConfigInput,
  SAMPLE_HOTPOTQA_DATASET,
  type Trajectory,
  trajectorySchema,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  freePort,
  type InProcessGateway,
  RLF,
  startTestGateway,
  stopChild,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function startSearchHttp(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [RLF, "tool", "search", "--http", String(port)], {
    stdio: "ignore",
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await stopChild(child, 5000);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () =>
      (await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )) === true,
    30_000,
    "the search server",
  );
  return { child, url };
}

function config(sim: SimulatedLlm, gateway: InProcessGateway, extra: Partial<RolloutConfigInput> = {}) {
  return parseRolloutConfig({
    inference: { engine: "vllm", urls: [sim.url], retries: 1, timeout_ms: 5000 },
    gateway: { address: gateway.gateway.grpcAddress, tools: ["search__search"], deadline_ms: 400 },
    rollout: {
      group_size: 2,
      max_turns: 4,
      max_concurrency: 8,
      sampling: { temperature: 1, max_tokens: 256 },
    },
    reward: { components: [{ type: "exact_match", weight: 1 }] },
    seed: 5,
    ...extra,
  });
}

async function collect(iterable: AsyncIterable<{ trajectories: Trajectory[] }>): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for await (const g of iterable) out.push(...g.trajectories);
  return out;
}

describe("rollout under faults", () => {
  it("a tool server that hangs, then dies, mid-run: every trajectory returns with its error codes", async () => {
    const search = await startSearchHttp();
    const gateway = await startTestGateway({
      servers: {
        search: {
          url: `${search.url}/mcp`,
          policy: { breaker: { consecutive_failures: 5, half_open_after_ms: 500 } },
        },
      },
    });
    cleanups.push(() => gateway.stop());
    const sim = await startSimulatedLlm({
      policy: "search-then-answer",
      seed: 1,
      latency: { turnMs: [20, 40] },
    });
    cleanups.push(() => sim.close());
    const tasks = await loadTasks(SAMPLE_HOTPOTQA_DATASET);
    const engine = await createRolloutEngine(config(sim, gateway));
    cleanups.push(() => engine.close());

    const run = collect(engine.rollout(tasks));
    await waitFor(async () => sim.requests.length >= 12, 30_000, "the rollout to get going");
    search.child.kill("SIGSTOP"); // hangs: calls time out at the gateway's deadline
    const hungAt = sim.requests.length;
    await waitFor(async () => sim.requests.length >= hungAt + 16, 30_000, "progress while the tool hangs");
    search.child.kill("SIGKILL"); // dies: connection refused, then the breaker opens
    const trajectories = await run;

    expect(trajectories).toHaveLength(tasks.length * 2);
    const ids = new Set(trajectories.map((t) => `${t.group_id}/${t.sample_index}`));
    expect(ids.size).toBe(tasks.length * 2);
    for (const t of trajectories) {
      expect(() => trajectorySchema.parse(t)).not.toThrow();
      expect(["completed", "truncated"]).toContain(t.status);
    }
    const codes = new Set(trajectories.flatMap((t) => t.tool_calls.map((c) => c.error_code)));
    expect(codes).toContain(null); // calls before the fault succeeded
    expect(codes).toContain("TIMEOUT");
    expect([...codes].some((c) => c === "UNAVAILABLE" || c === "CIRCUIT_OPEN")).toBe(true);
    // the failed calls were shown to the model as coded errors, and it went on
    const failed = trajectories.find((t) => t.tool_calls.some((c) => c.error_code === "TIMEOUT"));
    expect(failed?.turns.length).toBeGreaterThan(2);
  }, 90_000);

  it("the inference server going away mid-run: trajectories end failed with the reason, none lost", async () => {
    const gateway = await startTestGateway({
      servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
    });
    cleanups.push(() => gateway.stop());
    const sim = await startSimulatedLlm({
      policy: "search-then-answer",
      seed: 2,
      latency: { turnMs: [20, 40] },
    });
    cleanups.push(() => sim.close());
    const tasks = (await loadTasks(SAMPLE_HOTPOTQA_DATASET)).slice(0, 12);
    const engine = await createRolloutEngine(config(sim, gateway));
    cleanups.push(() => engine.close());

    const run = collect(engine.rollout(tasks));
    await waitFor(async () => sim.requests.length >= 8, 30_000, "the rollout to get going");
    await sim.close();
    const trajectories = await run;

    expect(trajectories).toHaveLength(tasks.length * 2);
    const failed = trajectories.filter((t) => t.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    for (const t of failed) {
      expect(t.status_reason).toMatch(/^inference (UNAVAILABLE|HTTP_ERROR|TIMEOUT)/);
      // unfinished, not wrong: no reward and no advantage (never a silent 0 in the group baseline)
      expect([t.reward, t.advantage, t.reward_components]).toEqual([null, null, {}]);
    }
    for (const t of trajectories) expect(() => trajectorySchema.parse(t)).not.toThrow();
  }, 60_000);

  it("a tool-verified reward with the gateway down: reward null with UNAVAILABLE, not an internal error", async () => {
    const gateway = await startTestGateway({
      servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
    });
    cleanups.push(() => gateway.stop());
    // answers on its first turn: the trajectory needs no tool, only its reward does
    const sim = await startSimulatedLlm({ policy: "parallel-calls", policyOptions: { turns: 0 }, seed: 4 });
    cleanups.push(() => sim.close());
    const tasks = (await loadTasks(SAMPLE_HOTPOTQA_DATASET)).slice(0, 3);
    const engine = await createRolloutEngine(
      config(sim, gateway, {
        reward: {
          components: [
            { type: "tool_verified", tool: "search__search", arguments: { query: "{{answer}}" } },
            { type: "format", weight: 0.1 },
          ],
        },
      }),
    );
    cleanups.push(() => engine.close());
    await gateway.stop(); // the engine listed the catalog; now nothing listens at the gateway's address

    const trajectories = await collect(engine.rollout(tasks));
    expect(trajectories).toHaveLength(6);
    for (const t of trajectories) {
      expect([t.status, t.status_reason, t.tool_calls]).toEqual(["completed", "answer", []]);
      expect(t.reward_error).toMatchObject({ component: "tool_verified", code: "UNAVAILABLE" });
      expect(t.reward_error?.message).toMatch(/^search__search: UNAVAILABLE: /);
      expect([t.reward, t.advantage]).toEqual([null, null]);
      expect(t.reward_components).toEqual({ format: 1 }); // the other component still reported
    }
  }, 60_000);

  it("cancellation: trajectories in flight end aborted and are still returned", async () => {
    const gateway = await startTestGateway({
      servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
    });
    cleanups.push(() => gateway.stop());
    const sim = await startSimulatedLlm({
      policy: "search-then-answer",
      seed: 3,
      latency: { turnMs: [50, 80] },
    });
    cleanups.push(() => sim.close());
    const tasks = (await loadTasks(SAMPLE_HOTPOTQA_DATASET)).slice(0, 10);
    const engine = await createRolloutEngine(config(sim, gateway));
    cleanups.push(() => engine.close());
    const abort = new AbortController();
    const run = collect(engine.rollout(tasks, { signal: abort.signal }));
    await waitFor(async () => sim.requests.length >= 6, 30_000, "the rollout to get going");
    abort.abort();
    const trajectories = await run;
    expect(trajectories).toHaveLength(20);
    const aborted = trajectories.filter((t) => t.status === "aborted");
    expect(aborted.length).toBeGreaterThan(0);
    for (const t of aborted) {
      expect(t.status_reason).toBe("cancelled");
      expect([t.reward, t.advantage]).toEqual([null, null]);
    }
  }, 60_000);
});
