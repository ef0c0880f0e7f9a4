// The deployment end to end, from the built images: Redis, the four tool servers and two gateways
// run as containers (rlfactory:dev, rlfactory-redis:dev; host network, each service on its own
// loopback port), and the rollout service's rollout engine in this process runs HotpotQA rollouts through
// them against the simulated inference server. Asserts: correct results; the result cache shared
// through Redis by two gateways; a tool container killed and restarted mid-run without a lost
// trajectory; spans from the engine and every container in one trace per trajectory; no container
// or process leak after 200 concurrent calls for 30 s.
//
// Needs Docker and the images (.ci/docker-setup.sh, then deploy/build-images.sh). Without a Docker
// daemon it is skipped, except under CI, where it must run.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { GatewayClient } from "@rlfactory/clients";
import {
  createRolloutEngine,
  loadTasks,
  parseRolloutConfig,
  type RolloutConfigInput,
  SAMPLE_HOTPOTQA_DATASET,
  type Task,
  type Trajectory,
  trajectorySchema,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { startTelemetry, type Telemetry } from "@rlfactory/telemetry";
import { tempDir, waitFor } from "@rlfactory/test-support/gateway-harness";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "@rlfactory/test-support/otlp-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  containerProcesses,
  docker,
  dockerAvailable,
  httpOk,
  labelledContainers,
  REDIS_IMAGE,
  RLF_IMAGE,
  removeLabelledContainers,
  requireImages,
  ServiceContainers,
} from "./docker-services.ts";

// Ports used by nothing else in the test suite.
const PORTS = {
  redis: 26379,
  search: 27001,
  calculator: 27002,
  code: 27003,
  sql: 27004,
  gatewayA: { grpc: 25051, admin: 28080 },
  gatewayB: { grpc: 25052, admin: 28081 },
} as const;
const TOOLS = ["search", "calculator", "code", "sql"] as const;
/** Length of the load phase; RLF_E2E_LOAD_SECONDS shortens it for local runs. */
const LOAD_SECONDS = z.coerce
  .number()
  .positive()
  .default(30)
  .parse(process.env.RLF_E2E_LOAD_SECONDS || undefined);
const LOAD_CONCURRENCY = 200;

const hasDocker = await dockerAvailable();
const runHere = hasDocker || process.env.CI !== undefined;
if (!runHere) console.warn("containers e2e skipped: no Docker daemon (`docker info` fails) and CI is unset");

/** The gateway config both gateway containers mount; search's cache policy is deploy/local's. */
function gatewayConfig() {
  return {
    grpc: { host: "127.0.0.1", port: PORTS.gatewayA.grpc },
    admin: { host: "127.0.0.1", port: PORTS.gatewayA.admin },
    cache: { backend: "redis", redis_url: `redis://127.0.0.1:${PORTS.redis}`, key_prefix: "rlf:e2e:" },
    defaults: { deadline_ms: 30_000 },
    servers: {
      search: {
        url: `http://127.0.0.1:${PORTS.search}/mcp`,
        tools: { search: { cache: true, idempotent: true } },
        // a killed container is noticed fast and a restarted one taken back fast
        policy: { breaker: { consecutive_failures: 5, half_open_after_ms: 500 } },
      },
      calculator: {
        url: `http://127.0.0.1:${PORTS.calculator}/mcp`,
        tools: { calculate: { cache: true, idempotent: true } },
      },
      code: { url: `http://127.0.0.1:${PORTS.code}/mcp`, policy: { deadline_ms: 70_000 } },
      sql: { url: `http://127.0.0.1:${PORTS.sql}/mcp`, tools: { query: { cache: true } } },
    },
  };
}

const adminUrl = (g: { admin: number }) => `http://127.0.0.1:${g.admin}`;

/** One counter of a gateway's Prometheus exposition (0 when absent). */
async function gatewayCounter(g: { admin: number }, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${adminUrl(g)}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

async function collect(run: AsyncIterable<{ trajectories: Trajectory[] }>): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for await (const group of run) out.push(...group.trajectories);
  return out;
}

describe.skipIf(!runHere)("the deployment as containers", () => {
  const containers = new ServiceContainers("rlf-e2e");
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let sim: SimulatedLlm;
  let tasks: Task[];
  let clientA: GatewayClient;
  let clientB: GatewayClient;

  function rolloutConfig(overrides: Partial<RolloutConfigInput["rollout"]> = {}, deadlineMs = 10_000) {
    return parseRolloutConfig({
      inference: { engine: "vllm", urls: [sim.url], retries: 1, timeout_ms: 10_000 },
      gateway: {
        address: `127.0.0.1:${PORTS.gatewayA.grpc}`,
        tools: ["search__search"],
        deadline_ms: deadlineMs,
      },
      rollout: {
        group_size: 2,
        max_turns: 4,
        max_concurrency: 16,
        sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 256 },
        ...overrides,
      },
      reward: { components: [{ type: "exact_match", weight: 1 }] },
      seed: 17,
    });
  }

  async function rollOut(raw: ReturnType<typeof rolloutConfig>, batch: Task[]): Promise<Trajectory[]> {
    const engine = await createRolloutEngine(raw);
    try {
      return await collect(engine.rollout(batch));
    } finally {
      await engine.close();
    }
  }

  const toolReady = (port: number) => () => httpOk(`http://127.0.0.1:${port}/healthz`);

  beforeAll(async () => {
    if (!hasDocker) throw new Error("CI is set but `docker info` fails: run .ci/docker-setup.sh first");
    await requireImages([RLF_IMAGE, REDIS_IMAGE]);
    await removeLabelledContainers(); // a crashed earlier run's leftovers hold our ports

    // Telemetry: this process (the rollout service engine) and every container export to one receiver.
    receiver = await startOtlpReceiver(0);
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    telemetry = await startTelemetry({ serviceName: "rlf-rollout" });
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };

    // The config is mounted read-only; the image's user is not root, so it must be world-readable.
    const dir = tempDir("rlf-containers-e2e-");
    chmodSync(dir, 0o755);
    const configFile = join(dir, "gateway.json");
    writeFileSync(configFile, JSON.stringify(gatewayConfig(), null, 2), { mode: 0o644 });

    [sim, tasks] = await Promise.all([
      startSimulatedLlm({ policy: "search-then-answer", seed: 7 }),
      loadTasks(SAMPLE_HOTPOTQA_DATASET),
      containers.start({
        name: "redis",
        image: REDIS_IMAGE,
        env: { REDIS_PORT: String(PORTS.redis) }, // the image's CMD: loopback, no persistence
        ready: async () =>
          (
            await docker(["exec", containers.get("redis").id, "redis-cli", "-p", String(PORTS.redis), "ping"])
          ).trim() === "PONG",
      }),
      ...TOOLS.map((tool) =>
        containers.start({
          name: tool,
          image: RLF_IMAGE,
          command: ["tool", tool, "--http", String(PORTS[tool])],
          env: { ...otel, RLF_HEALTH_URL: `http://127.0.0.1:${PORTS[tool]}/healthz` },
          // bubblewrap's namespaces, as deploy/compose.yaml allows them for the code container
          ...(tool === "code"
            ? { securityOpt: ["seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"] }
            : {}),
          ready: toolReady(PORTS[tool]),
        }),
      ),
    ]);
    await Promise.all(
      (["gatewayA", "gatewayB"] as const).map((name) =>
        containers.start({
          name,
          image: RLF_IMAGE,
          command: [
            "gateway",
            "--config",
            "/etc/rlf/gateway.json",
            "--grpc-port",
            String(PORTS[name].grpc),
            "--admin-port",
            String(PORTS[name].admin),
          ],
          env: { ...otel, RLF_HEALTH_URL: `${adminUrl(PORTS[name])}/healthz` },
          mounts: { [configFile]: "/etc/rlf/gateway.json" },
          ready: () => httpOk(`${adminUrl(PORTS[name])}/readyz`),
        }),
      ),
    );
    clientA = new GatewayClient(`127.0.0.1:${PORTS.gatewayA.grpc}`);
    clientB = new GatewayClient(`127.0.0.1:${PORTS.gatewayB.grpc}`);
  }, 150_000);

  afterAll(async () => {
    clientA?.close();
    clientB?.close();
    await containers.stopAll();
    if (hasDocker) await removeLabelledContainers();
    await sim?.close();
    await telemetry?.shutdown();
    await receiver?.close();
  }, 90_000);

  let trajectories: Trajectory[] = [];

  it("runs rollouts from the rollout service through the containerised gateway with correct results", async () => {
    trajectories = await rollOut(rolloutConfig(), tasks);
    expect(trajectories).toHaveLength(tasks.length * 2);
    for (const t of trajectories) {
      expect(() => trajectorySchema.parse(t)).not.toThrow();
      expect(t.status, `${t.task_id}: ${t.status_reason}`).toBe("completed");
      expect(t.status_reason).toBe("answer");
      expect(t.tool_calls.length).toBeGreaterThan(0);
      for (const c of t.tool_calls) expect(c.error_code, c.result).toBeNull();
    }
    // the passages came from the search container: the answers are right for some questions
    const exact = trajectories.filter((t) => t.reward_components.exact_match === 1);
    expect(exact.length).toBeGreaterThan(0);
  }, 60_000);

  it("puts the engine's and every container's spans in one trace per trajectory", async () => {
    expect(trajectories.length).toBeGreaterThan(0);
    const roots = await receiver.waitFor(
      (s) => s.name === "rollout.trajectory" && s.serviceName === "rlf-rollout",
      15_000,
      trajectories.length,
    );
    const rootOf = new Map(roots.map((s) => [String(s.attributes["rlf.trajectory_id"]), s]));
    const traceIds = new Set<string>();
    let withToolSpan = 0;
    for (const t of trajectories) {
      const root = rootOf.get(`${t.group_id}/${t.sample_index}`);
      expect(root, `root span of ${t.group_id}/${t.sample_index}`).toBeDefined();
      traceIds.add(root!.traceId);
    }
    expect(traceIds.size).toBe(trajectories.length); // one trace per trajectory

    // every trajectory's trace holds the gateway's span for each of its calls (tagged with the
    // trajectory); each call that executed (no cache hit, not coalesced) also holds the search
    // container's span
    await waitFor(
      () => {
        const byTrace = new Map<string, ReceivedSpan[]>();
        for (const s of receiver.spans()) {
          if (traceIds.has(s.traceId)) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
        }
        withToolSpan = 0;
        for (const t of trajectories) {
          const id = `${t.group_id}/${t.sample_index}`;
          const spans = byTrace.get(rootOf.get(id)!.traceId) ?? [];
          const calls = spans.filter(
            (s) => s.serviceName === "rlf-gateway" && s.attributes["rlf.cache_hit"] !== undefined,
          );
          if (calls.length !== t.tool_calls.length) return false;
          if (calls.some((s) => s.attributes["rlf.trajectory_id"] !== id)) return false;
          const executed = calls.filter(
            (s) => s.attributes["rlf.cache_hit"] === false && s.attributes["rlf.coalesced"] === false,
          );
          const tool = spans.filter((s) => s.serviceName === "rlf-tool-search");
          if (tool.length < executed.length) return false;
          if (tool.length > 0) withToolSpan += 1;
        }
        return true;
      },
      15_000,
      "the gateway's and the search container's spans in every trajectory's trace",
    );
    expect(withToolSpan).toBeGreaterThan(0);

    // the other tool containers: a call made inside a span of this process lands in its trace
    const tracer = trace.getTracer("containers-e2e");
    const calls = [
      {
        service: "rlf-tool-calculator",
        name: "calculator__calculate",
        args: { expression: "6 * 7" },
        result: { result: 42 },
      },
      {
        // the sandbox (bubblewrap namespaces) works inside the container
        service: "rlf-tool-code",
        name: "code__run_code",
        args: { language: "python", code: "print(6 * 7)" },
        result: { status: "ok", stdout: "42\n" },
      },
      {
        service: "rlf-tool-sql",
        name: "sql__list_tables",
        args: { db: "concert_singer" },
        result: {},
      },
    ];
    for (const call of calls) {
      const traceId = await tracer.startActiveSpan(`e2e ${call.name}`, async (span) => {
        try {
          const result = await clientA.callTool({
            name: call.name,
            arguments_json: JSON.stringify(call.args),
            cache: "CACHE_BYPASS",
          });
          expect(result.error_code, result.error_message).toBe("OK");
          expect(result.is_error, JSON.stringify(result.content)).toBe(false);
          expect(JSON.parse(result.structured_content_json)).toMatchObject(call.result);
          return span.spanContext().traceId;
        } finally {
          span.end();
        }
      });
      const spans = await receiver.waitFor((s) => s.traceId === traceId, 15_000, 4);
      const services = new Set(spans.map((s) => s.serviceName));
      expect(services, call.name).toEqual(new Set(["rlf-rollout", "rlf-gateway", call.service]));
    }
  }, 60_000);

  it("shares the result cache through Redis: a call through gateway A is a hit through gateway B", async () => {
    const call = {
      name: "search__search",
      arguments_json: JSON.stringify({ query: `Scott Derrickson nationality ${Date.now()}` }),
    };
    const first = await clientA.callTool(call);
    expect(first.error_code).toBe("OK");
    expect(first.cache_hit).toBe(false);
    const fromB = await clientB.callTool(call);
    expect(fromB.error_code).toBe("OK");
    expect(fromB.cache_hit).toBe(true);
    expect(fromB.content).toEqual(first.content);
    // and it is really Redis that holds it
    const keys = await docker([
      "exec",
      containers.get("redis").id,
      "redis-cli",
      "-p",
      String(PORTS.redis),
      "--scan",
      "--pattern",
      "rlf:e2e:*",
    ]);
    expect(keys.split("\n").filter(Boolean).length).toBeGreaterThan(0);
  }, 30_000);

  it("loses no trajectory when the search container is killed and restarted mid-run", async () => {
    // An empty cache, so that searches reach the search container; slow turns and 6 samples per
    // task, so that the run outlasts the outage and the restart (about 5 s) by several seconds.
    await docker(["exec", containers.get("redis").id, "redis-cli", "-p", String(PORTS.redis), "flushall"]);
    const groupSize = 6;
    const slow = await startSimulatedLlm({
      policy: "search-then-answer",
      seed: 9,
      latency: { turnMs: [150, 250] },
    });
    try {
      const engine = await createRolloutEngine(
        parseRolloutConfig({
          ...rolloutConfig({ group_size: groupSize, max_concurrency: 6 }, 2_000),
          inference: { engine: "vllm", urls: [slow.url], retries: 1, timeout_ms: 10_000 },
        }),
      );
      const searchErrors = () =>
        gatewayCounter(
          PORTS.gatewayA,
          "rlf_gateway_calls_total",
          'server="search",tool="search__search",outcome="call_error"',
        );
      let finished = false;
      const run = collect(engine.rollout(tasks)).finally(() => {
        finished = true;
        return engine.close();
      });
      try {
        await waitFor(() => slow.requests.length >= 12, 30_000, "the rollout to get going");
        await containers.kill("search");
        await waitFor(async () => (await searchErrors()) > 0, 30_000, "a search call to fail");
        await containers.restart("search"); // resolves once the new container answers /healthz
        const spansAtRestart = receiver.spans().length;
        expect(finished, "the run ended before the search container was back").toBe(false);
        const trajectoriesOfRun = await run;

        expect(trajectoriesOfRun).toHaveLength(tasks.length * groupSize);
        const ids = new Set(trajectoriesOfRun.map((t) => `${t.group_id}/${t.sample_index}`));
        expect(ids.size).toBe(tasks.length * groupSize);
        for (const t of trajectoriesOfRun) {
          expect(() => trajectorySchema.parse(t)).not.toThrow();
          expect(t.status, `${t.task_id}: ${t.status_reason}`).toBe("completed");
        }
        const codes = new Set(trajectoriesOfRun.flatMap((t) => t.tool_calls.map((c) => c.error_code)));
        expect(codes).toContain(null);
        expect(codes).toContain("UNAVAILABLE"); // the outage, as the model saw it
        for (const code of codes) expect([null, "UNAVAILABLE", "CIRCUIT_OPEN"]).toContain(code);

        // Searches the restarted container executed (its spans: the killed process's unexported
        // ones died with it) belong to trajectories of this run, which got their results.
        let recovered: string[] = [];
        await waitFor(
          () => {
            const executed = new Set(
              receiver
                .spans()
                .slice(spansAtRestart)
                .filter((s) => s.serviceName === "rlf-tool-search" && s.name === "tools/call search")
                .map((s) => s.traceId),
            );
            recovered = receiver
              .spans()
              .filter((s) => s.name === "rollout.trajectory" && executed.has(s.traceId))
              .map((s) => String(s.attributes["rlf.trajectory_id"]));
            return recovered.length > 0;
          },
          10_000,
          "a search executed by the restarted container, in a trajectory's trace",
        );
        expect(recovered.length).toBeGreaterThan(0);
        for (const id of recovered) {
          const t = trajectoriesOfRun.find((x) => `${x.group_id}/${x.sample_index}` === id);
          expect(t, id).toBeDefined();
          expect(t!.tool_calls.some((c) => c.error_code === null)).toBe(true);
        }
      } finally {
        await run.catch(() => undefined);
      }
    } finally {
      await slow.close();
    }
  }, 120_000);

  it(`leaks no container and no process under ${LOAD_CONCURRENCY} concurrent calls for ${LOAD_SECONDS} s`, async () => {
    /** The labelled containers, and the command lines of each one's processes (sorted). */
    const snapshot = async () => {
      const ids = (await labelledContainers()).sort();
      const processes: Record<string, string[]> = {};
      const zombies: string[] = [];
      for (const s of containers.all()) {
        const procs = await containerProcesses(s.id);
        processes[s.spec.name] = procs.map((p) => p.command).sort();
        for (const p of procs) if (p.stat.startsWith("Z")) zombies.push(`${s.spec.name}: ${p.command}`);
      }
      return { ids, processes, zombies };
    };
    const before = await snapshot();
    expect(before.ids).toHaveLength(containers.all().length);
    expect(before.zombies).toEqual([]);

    const load = new GatewayClient(`127.0.0.1:${PORTS.gatewayA.grpc}`);
    const codes = new Map<string, number>();
    let calls = 0;
    const until = Date.now() + LOAD_SECONDS * 1000;
    try {
      await Promise.all(
        Array.from({ length: LOAD_CONCURRENCY }, async (_, worker) => {
          for (let i = 0; Date.now() < until; i += 1) {
            const result = await load.callTool({
              name: "calculator__calculate",
              arguments_json: JSON.stringify({ expression: `${worker} * 1000 + ${i}` }),
              cache: "CACHE_BYPASS",
            });
            codes.set(result.error_code, (codes.get(result.error_code) ?? 0) + 1);
            calls += 1;
          }
        }),
      );
    } finally {
      load.close();
    }
    expect(Object.fromEntries(codes)).toEqual({ OK: calls });
    expect(calls).toBeGreaterThan(LOAD_CONCURRENCY);

    // the same containers, each with the same processes (none left over, no zombie) once calls settle
    let after = await snapshot();
    await waitFor(
      async () => {
        after = await snapshot();
        return JSON.stringify(after.processes) === JSON.stringify(before.processes);
      },
      15_000,
      "the containers' processes to settle",
    ).catch(() => undefined); // the assertions below say what differs
    expect(after.ids).toEqual(before.ids);
    expect(after.processes).toEqual(before.processes);
    expect(after.zombies).toEqual([]);
  }, 120_000);
});
