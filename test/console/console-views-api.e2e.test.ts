// The console API behind the later views (issue 26): against a child gateway serving the search tool
// and the kv environment, a run written by a real `rlf rollout`, the repository's FTRL bundle and a
// small server speaking Jaeger's query API. A playground call reaches the tool through the gateway
// (and the gateway counts it); an episode is started, used, listed and ended; a trajectory comes with
// its group's siblings; the Traces data is the record's calls, or Jaeger's spans when it has the trace.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildConsoleApp } from "@rlfactory/console";
import type { Trajectory } from "@rlfactory/contracts";
import { readTrajectoriesJsonl } from "@rlfactory/rollout";
import { RLF, ROOT, tempDir } from "@rlfactory/test-support/gateway-harness";
import {
  type JaegerQueryFixture,
  startJaegerQueryFixture,
} from "@rlfactory/test-support/jaeger-query-fixture";
import { type RolloutRun, writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleProcess } from "./console-process.ts";

const KV = { command: process.execPath, args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"] };
const BUNDLE = join(ROOT, "examples/ftrl-hotpotqa/bundle");
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("the console API of the playground, episodes, bundles, trajectory detail and traces", () => {
  const runsDir = tempDir("rlf-console-views-");
  const bundlesDir = tempDir("rlf-console-bundles-");
  let run: RolloutRun;
  let app: FastifyInstance;
  let written: Trajectory[];
  let jaeger: JaegerQueryFixture;

  beforeAll(async () => {
    run = await writeRolloutRun(runsDir, "grpo", { tasks: 2, groupSize: 3, servers: { kv: KV } });
    written = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    // A copy of the run whose first trajectory carries a trace id Jaeger knows: one span per call.
    const traced = join(runsDir, "traced");
    mkdirSync(traced);
    cpSync(join(run.runDir, "summary.json"), join(traced, "summary.json"));
    const first = { ...written[0], metadata: { ...written[0]?.metadata, trace_id: TRACE_ID } };
    writeFileSync(join(traced, "trajectories.jsonl"), `${JSON.stringify(first)}\n`);
    const t0 = 1_700_000_000_000_000;
    jaeger = await startJaegerQueryFixture({
      [TRACE_ID]: [
        { spanID: "a0", operationName: "rollout.trajectory", startTime: t0, duration: 90_000, tags: [] },
        ...(written[0]?.tool_calls ?? []).map((c, i) => ({
          spanID: `c${i}`,
          operationName: "ToolGateway/Call",
          startTime: t0 + 10_000 + i * 20_000,
          duration: 5_000 + i * 1_000,
          tags: [
            { key: "gen_ai.operation.name", type: "string", value: "execute_tool" },
            { key: "gen_ai.tool.name", type: "string", value: c.name },
            { key: "rlf.cache_hit", type: "bool", value: false },
          ],
        })),
        // the attempt's client span: the same operation, not the call: no bar
        {
          spanID: "x1",
          operationName: "tools/call search",
          startTime: t0 + 10_500,
          duration: 4_000,
          tags: [{ key: "gen_ai.operation.name", type: "string", value: "execute_tool" }],
        },
      ],
    });
    // one good bundle and one whose tools.json was edited after its manifest was written
    cpSync(BUNDLE, join(bundlesDir, "ftrl"), { recursive: true });
    cpSync(BUNDLE, join(bundlesDir, "edited"), { recursive: true });
    writeFileSync(join(bundlesDir, "edited/tools.json"), "[]\n");
    app = buildConsoleApp({ gatewayAdmin: run.gateway.adminUrl, runsDir, jaeger: jaeger.url, bundlesDir });
  }, 150_000);

  afterAll(async () => {
    await app?.close();
    await jaeger?.close();
    await run?.stop();
  });

  const tool = async (name: string) =>
    (
      (await app.inject({ method: "GET", url: "/api/tools" })).json().tools as {
        name: string;
        calls: number;
      }[]
    ).find((t) => t.name === name);

  it("a playground call returns the tool's result through the gateway, which counts it, with a trace id", async () => {
    const before = (await tool("search__search"))?.calls ?? -1;
    const res = await app.inject({
      method: "POST",
      url: "/api/tools/search__search/call",
      payload: { arguments: { query: "Scott Derrickson" } },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe(200);
    expect(body.result.error_code).toBe("OK");
    expect(body.result.content[0].text).toContain("Scott Derrickson");
    expect(body.latency_ms).toBeGreaterThan(0);
    expect(body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(body.trace_url).toBe(`${jaeger.url}/trace/${body.trace_id}`);
    expect((await tool("search__search"))?.calls).toBe(before + 1);
    // per server: its tools' calls together, with latency quantiles
    const overview = (await app.inject({ method: "GET", url: "/api/tools" })).json();
    const kvCalls = overview.tools
      .filter((t: { server: string }) => t.server === "kv")
      .reduce((a: number, t: { calls: number }) => a + t.calls, 0);
    const servers = new Map(overview.servers.map((s: { server: string }) => [s.server, s]));
    expect(servers.get("search")).toMatchObject({ health: "ready", breaker: "closed", calls: before + 1 });
    expect(servers.get("search")).toMatchObject({ latency_p50_ms: expect.any(Number) });
    expect(servers.get("kv")).toMatchObject({ health: "ready", calls: kvCalls });

    const unknown = await app.inject({ method: "POST", url: "/api/tools/nope__nope/call", payload: {} });
    expect(unknown.json()).toMatchObject({ status: 404, result: { error_code: "UNKNOWN_TOOL" } });
    const bad = await app.inject({
      method: "POST",
      url: "/api/tools/search__search/call",
      payload: { x: 1 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("starts an episode, calls its tools, lists it live with the counters, and ends it with its final state", async () => {
    const started = await app.inject({
      method: "POST",
      url: "/api/episodes",
      payload: { server: "kv", config: {} },
    });
    expect(started.statusCode).toBe(200);
    const id = started.json().episode_id as string;
    const put = await app.inject({
      method: "POST",
      url: "/api/tools/kv__put/call",
      payload: { arguments: { key: "k", value: "v" }, episode_id: id },
    });
    expect(put.json().result.error_code).toBe("OK");

    const live = (await app.inject({ method: "GET", url: "/api/episodes" })).json();
    const kv = live.servers.find((s: { server: string }) => s.server === "kv");
    expect(kv).toMatchObject({ live: 1, counts: { started: 1, ended: 0 } });
    expect(kv.episodes.map((e: { episode_id: string }) => e.episode_id)).toEqual([id]);

    const ended = await app.inject({ method: "DELETE", url: `/api/episodes/${encodeURIComponent(id)}` });
    expect(ended.json()).toEqual({ state: { k: "v" } });
    const after = (await app.inject({ method: "GET", url: "/api/episodes" })).json();
    expect(after.servers.find((s: { server: string }) => s.server === "kv")).toMatchObject({
      live: 0,
      counts: { started: 1, ended: 1 },
    });
    const again = await app.inject({ method: "DELETE", url: `/api/episodes/${encodeURIComponent(id)}` });
    expect(again.json().error.code).toBe("EPISODE_NOT_FOUND");
  });

  it("serves a trajectory with its GRPO group's siblings and their advantages", async () => {
    const res = (await app.inject({ method: "GET", url: "/api/runs/grpo/trajectories/1" })).json();
    const group = written
      .map((t, index) => ({ t, index }))
      .filter(({ t }) => t.group_id === written[1]?.group_id);
    expect(group).toHaveLength(3);
    expect(res.siblings).toEqual(
      group.map(({ t, index }) =>
        expect.objectContaining({ index, sample_index: t.sample_index, advantage: t.advantage ?? null }),
      ),
    );
    // telemetry off in the rollout: no trace id, so the link is the console's own Traces view
    expect(res.trace).toEqual({ trace_id: null, url: "/runs/grpo/trajectories/1/trace" });
    expect(res.environment).toBeNull();
  });

  it("the Traces data is the record's calls, laid out turn by turn, when Jaeger has no trace id to look up", async () => {
    const i = written.findIndex((t) => t.tool_calls.length > 0);
    const t = written[i] as Trajectory;
    const res = (await app.inject({ method: "GET", url: `/api/runs/grpo/trajectories/${i}/trace` })).json();
    expect(res.source).toBe("record");
    expect(res.jaeger_error).toContain("no trace_id");
    expect(res.bars.map((b: { name: string; duration_ms: number }) => [b.name, b.duration_ms])).toEqual(
      t.tool_calls.map((c) => [c.name, c.latency_ms]),
    );
  });

  it("the Traces data is one bar per gateway call span from Jaeger when the trajectory carries its trace id", async () => {
    const res = (await app.inject({ method: "GET", url: "/api/runs/traced/trajectories/0/trace" })).json();
    const calls = written[0]?.tool_calls ?? [];
    expect(res).toMatchObject({
      source: "jaeger",
      trace_id: TRACE_ID,
      trace_url: `${jaeger.url}/trace/${TRACE_ID}`,
    });
    expect(res.bars).toEqual(
      calls.map((c, i) =>
        expect.objectContaining({ name: c.name, start_ms: 10 + i * 20, duration_ms: 5 + i }),
      ),
    );
    expect(jaeger.requested).toContain(`/api/traces/${TRACE_ID}`);
    const detail = (await app.inject({ method: "GET", url: "/api/runs/traced/trajectories/0" })).json();
    expect(detail.trace).toEqual({ trace_id: TRACE_ID, url: `${jaeger.url}/trace/${TRACE_ID}` });
  });

  it("lists the bundles under --bundles with their validation, and says which one fails verification", async () => {
    const report = JSON.parse(readFileSync(join(BUNDLE, "validation.json"), "utf8"));
    const tasks = readFileSync(join(BUNDLE, "tasks.jsonl"), "utf8").trim().split("\n").length;
    const { bundles } = (await app.inject({ method: "GET", url: "/api/bundles" })).json();
    const byId = new Map(bundles.map((b: { id: string }) => [b.id, b]));
    expect(byId.get("ftrl")).toMatchObject({
      error: null,
      tasks,
      tools: report.tools.length,
      validation: { checked: report.checked, passed: report.passed, dropped: report.dropped },
    });
    expect(byId.get("edited")).toMatchObject({ error: expect.stringContaining("tools.json") });
    const one = (await app.inject({ method: "GET", url: "/api/bundles/ftrl" })).json();
    expect(one.tool_list).toHaveLength(report.tools.length);
    expect(one.validation_report).toEqual(report);
    expect((await app.inject({ method: "GET", url: "/api/bundles/nope" })).statusCode).toBe(404);
  });

  it("rlf console --jaeger --bundles serves the bundles and links traces to Jaeger; a --jaeger that is no URL is refused", async () => {
    const refused = spawnSync(process.execPath, [RLF, "console", "--port", "0", "--jaeger", "not a url"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("--jaeger not a url is not a URL");

    const { url, stop } = await startConsoleProcess(
      ["--port", "0", "--gateway-admin", run.gateway.adminUrl, "--runs", runsDir].concat([
        "--jaeger",
        jaeger.url,
        "--bundles",
        bundlesDir,
      ]),
    );
    try {
      const bundles = (await (await fetch(`${url}/api/bundles`)).json()) as { bundles: { id: string }[] };
      expect(bundles.bundles.map((b) => b.id).sort()).toEqual(["edited", "ftrl"]);
      const detail = (await (await fetch(`${url}/api/runs/traced/trajectories/0`)).json()) as {
        trace: unknown;
      };
      expect(detail.trace).toEqual({ trace_id: TRACE_ID, url: `${jaeger.url}/trace/${TRACE_ID}` });
    } finally {
      await stop();
    }
  });
});
