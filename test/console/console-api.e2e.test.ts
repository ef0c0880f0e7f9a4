import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildConsoleApp } from "@rlfactory/console";
import { readTrajectoriesJsonl, readTrajectoriesParquet, writeTrajectoriesParquet } from "@rlfactory/rollout";
import { tempDir, waitFor } from "@rlfactory/test-support/gateway-harness";
import {
  type LiveRolloutService,
  startLiveRolloutService,
} from "@rlfactory/test-support/live-rollout-service";
import { type RolloutRun, writeRolloutRun } from "@rlfactory/test-support/rollout-run";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleProcess } from "./console-process.ts";

describe("the console API", () => {
  const runsDir = tempDir("rlf-console-runs-");
  let run: RolloutRun;
  let app: FastifyInstance;

  beforeAll(async () => {
    run = await writeRolloutRun(runsDir, "hotpotqa-a", { tasks: 2, groupSize: 2 });
    app = buildConsoleApp({ gatewayAdmin: run.gateway.adminUrl, runsDir });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await run?.stop();
  });

  it("lists the gateway's tools with health, breaker and the calls the rollout made", async () => {
    const res = await app.inject({ method: "GET", url: "/api/tools" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.gateway_status).toBe("ready");
    const search = body.tools.find((t: { name: string }) => t.name === "search__search");
    const trajectories = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    const made = trajectories.flatMap((t) => t.tool_calls).filter((c) => c.name === "search__search");
    expect(made.length).toBeGreaterThan(0);
    expect(search).toMatchObject({
      server: "search",
      health: "ready",
      breaker: "closed",
      calls: made.length,
      errors: made.filter((c) => c.error_code !== null).length,
    });
    expect(search.latency_p50_ms).toBeGreaterThan(0);
    expect(search.latency_p99_ms).toBeGreaterThanOrEqual(search.latency_p50_ms);
    expect(search.input_schema).toMatchObject({ type: "object" });
  });

  it("lists the run and its trajectories, and serves each trajectory as the rollout wrote it", async () => {
    const written = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    const runs = (await app.inject({ method: "GET", url: "/api/runs" })).json();
    expect(runs.runs.map((r: { id: string }) => r.id)).toEqual(["hotpotqa-a"]);
    expect(runs.runs[0].summary.status.completed + runs.runs[0].summary.status.truncated).toBe(4);

    const listing = (await app.inject({ method: "GET", url: "/api/runs/hotpotqa-a" })).json();
    expect(listing.trajectories.map((t: { task_id: string }) => t.task_id)).toEqual(
      written.map((t) => t.task_id),
    );

    const last = written.length - 1;
    const one = await app.inject({ method: "GET", url: `/api/runs/hotpotqa-a/trajectories/${last}` });
    expect(one.statusCode).toBe(200);
    expect(one.json().trajectory).toEqual(written[last]);
    // every token's text, decoded with the run's tokenizer (summary.json: qwen3)
    const { token_texts, token_texts_error } = one.json();
    expect(token_texts_error).toBeNull();
    expect(token_texts.prompt).toHaveLength(written[last]?.prompt_ids.length ?? -1);
    expect(token_texts.response).toHaveLength(written[last]?.response_ids.length ?? -1);
    expect(token_texts.prompt[0]).toBe("<|im_start|>");
    expect(token_texts.prompt.join("")).toContain("<|im_start|>user");
  });

  it("gives the run's curves: one point per group with its mean reward and success rate, and the status breakdown", async () => {
    const written = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    const { curves, in_progress } = (await app.inject({ method: "GET", url: "/api/runs/hotpotqa-a" })).json();
    expect(in_progress).toBe(false);
    const groups = [...new Set(written.map((t) => t.group_id))];
    expect(curves.points).toHaveLength(groups.length);
    groups.forEach((g, batch) => {
      const members = written.filter((t) => t.group_id === g && t.reward !== null);
      const mean = members.reduce((sum, t) => sum + (t.reward ?? 0), 0) / members.length;
      const right = members.filter((t) => (t.reward_components.exact_match ?? 0) >= 1).length;
      expect(curves.points[batch]).toMatchObject({
        batch,
        trajectories: 2,
        success_rate: right / members.length,
      });
      expect(curves.points[batch].reward_mean).toBeCloseTo(mean, 12);
    });
    const statuses: Record<string, number> = {};
    for (const t of written) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
    expect(curves.status_counts).toEqual(statuses);
    expect(Object.keys(curves.reward_components).sort()).toEqual(["exact_match", "format"]);
  });

  it("marks a run directory without summary.json as in progress (rlf rollout still writing it)", async () => {
    const dir = join(runsDir, "still-writing");
    mkdirSync(dir);
    const first = readFileSync(join(run.runDir, "trajectories.jsonl"), "utf8").split("\n")[0];
    writeFileSync(join(dir, "trajectories.jsonl"), `${first}\n`);
    try {
      const runs = (await app.inject({ method: "GET", url: "/api/runs" })).json();
      expect(runs.runs.find((r: { id: string }) => r.id === "still-writing")?.in_progress).toBe(true);
      const one = (await app.inject({ method: "GET", url: "/api/runs/still-writing" })).json();
      expect(one).toMatchObject({ in_progress: true, summary: null });
      expect(one.curves.points).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("reads a run directory that holds only trajectories.parquet", async () => {
    const dir = join(runsDir, "parquet-only");
    mkdirSync(dir);
    const written = await readTrajectoriesJsonl(join(run.runDir, "trajectories.jsonl"));
    await writeTrajectoriesParquet(join(dir, "trajectories.parquet"), written);
    writeFileSync(join(dir, "summary.json"), readFileSync(join(run.runDir, "summary.json"), "utf8"));
    try {
      const runs = (await app.inject({ method: "GET", url: "/api/runs" })).json();
      expect(runs.runs.find((r: { id: string }) => r.id === "parquet-only")?.trajectories).toBe(true);
      const one = (await app.inject({ method: "GET", url: "/api/runs/parquet-only" })).json();
      expect(one.trajectories).toHaveLength(written.length);
      const last = written.length - 1;
      const t = (
        await app.inject({ method: "GET", url: `/api/runs/parquet-only/trajectories/${last}` })
      ).json();
      // as the Parquet file holds it (Parquet keeps no difference between a null and an absent reward_error)
      const stored = await readTrajectoriesParquet(join(dir, "trajectories.parquet"));
      expect(t.trajectory).toEqual(JSON.parse(JSON.stringify(stored[last])));
      expect(t.trajectory.response_ids).toEqual(written[last]?.response_ids);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("answers 404 for a run or trajectory that is not there, and names nothing outside --runs", async () => {
    for (const url of [
      "/api/runs/nope",
      "/api/runs/hotpotqa-a/trajectories/99",
      "/api/runs/..%2F..%2Fetc/trajectories/0",
      "/api/runs/hotpotqa-a/trajectories/-1",
    ]) {
      const res = await app.inject({ method: "GET", url });
      expect({ url, status: res.statusCode, code: res.json().error.code }).toEqual({
        url,
        status: 404,
        code: "NOT_FOUND",
      });
    }
  });

  it("serves the web app at every view's path, and 502 when the gateway cannot be reached", async () => {
    for (const url of ["/", "/tools", "/runs/hotpotqa-a/trajectories/0"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.body).toContain('<div id="app">');
    }
    const offline = buildConsoleApp({ gatewayAdmin: "http://127.0.0.1:9", runsDir });
    try {
      const res = await offline.inject({ method: "GET", url: "/api/tools" });
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe("GATEWAY_UNAVAILABLE");
    } finally {
      await offline.close();
    }
  });

  it("rlf console --port --host --gateway-admin --runs serves the same API", async () => {
    const { url, stop } = await startConsoleProcess([
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--gateway-admin",
      run.gateway.adminUrl,
      "--runs",
      runsDir,
    ]);
    try {
      const runs = (await (await fetch(`${url}/api/runs`)).json()) as { runs: { id: string }[] };
      expect(runs.runs.map((r) => r.id)).toEqual(["hotpotqa-a"]);
      const tools = (await (await fetch(`${url}/api/tools`)).json()) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name)).toContain("search__search");
    } finally {
      await stop();
    }
  });
});

describe("the console's live runs, from a real rlf rollout serve", () => {
  let service: LiveRolloutService;
  let app: FastifyInstance;

  beforeAll(async () => {
    service = await startLiveRolloutService({ turnMs: [40, 80] });
    app = buildConsoleApp({
      gatewayAdmin: service.gateway.adminUrl,
      runsDir: tempDir(),
      rollout: service.httpUrl,
    });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await service?.stop();
  });

  it("lists the request while it runs, its groups growing, then done with one curve point per group", async () => {
    const live = async () =>
      (await app.inject({ method: "GET", url: "/api/live-runs" })).json() as {
        rollout: string;
        runs: { id: string; state: string; tasks: number; groups: number; trajectories: number }[];
      };
    expect((await live()).rollout).toBe(service.httpUrl);
    const finished = service.rollout(6);
    const seen = new Set<number>();
    let id = "";
    // The groups done, read while the request is still running, take more than one value.
    await waitFor(
      async () => {
        const running = (await live()).runs.find((r) => r.state === "running");
        if (running) {
          id = running.id;
          expect(running.tasks).toBe(6);
          seen.add(running.groups);
        }
        return seen.size >= 2;
      },
      60_000,
      "two different progress readings of the running request",
    );
    expect(await finished).toBe(6);
    const run = (await app.inject({ method: "GET", url: `/api/live-runs/${id}` })).json();
    expect(run).toMatchObject({ state: "done", tasks: 6, groups: 6, trajectories: 12 });
    expect(run.curves.points.map((p: { batch: number }) => p.batch)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Object.values(run.curves.status_counts as Record<string, number>).reduce((a, b) => a + b)).toBe(
      12,
    );
    expect((await app.inject({ method: "GET", url: "/api/live-runs/nope" })).statusCode).toBe(404);
  }, 90_000);

  it("answers 502 when the rollout service cannot be reached", async () => {
    const offline = buildConsoleApp({
      gatewayAdmin: "http://127.0.0.1:9",
      runsDir: tempDir(),
      rollout: "http://127.0.0.1:9",
    });
    try {
      const res = await offline.inject({ method: "GET", url: "/api/live-runs" });
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe("ROLLOUT_UNAVAILABLE");
    } finally {
      await offline.close();
    }
  });
});
