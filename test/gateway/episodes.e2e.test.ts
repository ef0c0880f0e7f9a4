// The episode lifecycle contract (docs/environments.md), end to end: a real gateway over loopback, real
// environment servers as its stdio child processes. Every environment implementation runs the same
// suite: each serves the reference key-value environment (tools put / get / append, see
// test/support/src/kv-environment.ts). A new implementation joins with one line in ENVIRONMENTS.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ServiceError } from "@grpc/grpc-js";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { writeKvBundle } from "@rlfactory/test-support/kv-bundle";
import { childrenWithEnv } from "@rlfactory/test-support/process-tree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface EnvironmentEntry {
  /** How the gateway spawns the environment server (stdio). */
  command: string;
  args: string[];
  /** The episode config that starts with these keys (default `{initial}`, the reference environment's). */
  config?: (initial: Record<string, string>) => Record<string, unknown>;
}

const KV_BUNDLE = tempDir("rlf-kv-bundle-");
await writeKvBundle(KV_BUNDLE);

const ENVIRONMENTS: [name: string, entry: EnvironmentEntry][] = [
  [
    "TypeScript toolkit (defineEnvironment)",
    { command: process.execPath, args: [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"] },
  ],
  [
    "Python class (rlf env python)",
    {
      command: process.execPath,
      args: [
        RLF,
        "env",
        "python",
        "--module",
        join(ROOT, "test/support/python/kv_environment.py"),
        "--class",
        "KV",
        "--stdio",
      ],
    },
  ],
  [
    "environment bundle (rlf env serve)",
    {
      command: process.execPath,
      args: [RLF, "env", "serve", KV_BUNDLE, "--name", "kv", "--stdio"],
      config: (initial) => ({ data: initial }),
    },
  ],
];

/** The marker env var that tells this suite's environment server processes apart (to kill one). */
const ROLE = "RLF_TEST_ENV_ROLE";

/** PIDs of this process's children started with `${ROLE}=role`. */
function childrenWithRole(role: string): number[] {
  return childrenWithEnv(`${ROLE}=${role}`);
}

describe.each(ENVIRONMENTS)("episode lifecycle: %s", (_name, entry) => {
  let gw: InProcessGateway;
  const initial = entry.config ?? ((keys: Record<string, string>) => ({ initial: keys }));
  const server = (
    role: string,
    policy: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) => ({
    command: entry.command,
    args: entry.args,
    env: { [ROLE]: role },
    policy: { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 }, ...policy },
    ...extra,
  });

  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        // `get` configured cacheable: an episode call must still never be answered from the cache.
        kv: server("main", {}, { tools: { get: { cache: true, idempotent: true } } }),
        kv_idle: server("idle", { episodes: { idle_timeout_ms: 400 } }),
        kv_limited: server("limited", { episodes: { max_live: 2 } }),
        kv_crash: server("crash"),
      },
    });
  }, 60_000);
  afterAll(() => gw?.stop());

  const call = async (episodeId: string, tool: string, args: Record<string, unknown>) => {
    const r = await gw.client.callTool({
      name: `kv__${tool}`,
      arguments_json: JSON.stringify(args),
      episode_id: episodeId,
    });
    return {
      code: r.error_code,
      isError: r.is_error,
      message: r.error_message,
      value: r.structured_content_json ? JSON.parse(r.structured_content_json) : undefined,
    };
  };
  const rpcFailure = (p: Promise<unknown>) =>
    p.then(
      () => "no error",
      (e: ServiceError) => e.details.split(":")[0],
    );

  it("hides the reserved tools and the handle argument from ListTools", async () => {
    const tools = await gw.client.listTools("kv");
    expect(tools.map((t) => t.name)).toEqual(["kv__append", "kv__get", "kv__put"]);
    for (const t of tools) {
      const schema = JSON.parse(t.input_schema_json) as {
        properties: Record<string, unknown>;
        required?: string[];
      };
      expect(Object.keys(schema.properties)).not.toContain("episode");
      expect(schema.required ?? []).not.toContain("episode");
    }
  });

  it("start → calls → snapshot → fork into 3 → each fork independent → end returns the final state", async () => {
    const id = await gw.client.startEpisode("kv", initial({ seed: "s" }));
    expect(await call(id, "put", { key: "a", value: "1" })).toMatchObject({ code: "OK", isError: false });
    expect(await call(id, "get", { key: "a" })).toMatchObject({ code: "OK", value: { value: "1" } });
    expect(await gw.client.snapshotEpisode(id)).toEqual({ seed: "s", a: "1" });

    const forks = await gw.client.forkEpisode(id, 3);
    expect(new Set([id, ...forks]).size).toBe(4);
    await Promise.all(forks.map((f, i) => call(f, "put", { key: "who", value: `fork${i}` })));
    await call(id, "put", { key: "a", value: "2" });
    for (const [i, f] of forks.entries())
      expect(await gw.client.snapshotEpisode(f)).toEqual({ seed: "s", a: "1", who: `fork${i}` });
    // An episode call is never answered from the cache, though `get` is configured cacheable.
    expect(await call(id, "get", { key: "a" })).toMatchObject({ value: { value: "2" } });

    expect(await gw.client.endEpisode(id)).toEqual({ seed: "s", a: "2" });
    expect(await call(id, "get", { key: "a" })).toMatchObject({ code: "EPISODE_NOT_FOUND" });
    expect(await rpcFailure(gw.client.endEpisode(id))).toBe("EPISODE_NOT_FOUND");
    for (const f of forks) await gw.client.endEpisode(f);
  });

  it("64 concurrent episodes, each writing its own key, never see another's", async () => {
    const ids = await Promise.all(Array.from({ length: 64 }, () => gw.client.startEpisode("kv")));
    await Promise.all(ids.map((id, i) => call(id, "put", { key: `k${i}`, value: `v${i}` })));
    const seen = await Promise.all(ids.map((id, i) => call(id, "get", { key: `k${(i + 1) % 64}` })));
    expect(seen.map((s) => s.value)).toEqual(ids.map(() => ({ value: null })));
    const finals = await Promise.all(ids.map((id) => gw.client.endEpisode(id)));
    expect(finals).toEqual(ids.map((_, i) => ({ [`k${i}`]: `v${i}` })));
  });

  it("runs a batch's calls on one episode in request order, one after another", async () => {
    const [a, b] = [await gw.client.startEpisode("kv"), await gw.client.startEpisode("kv")];
    // Earlier calls take longer: run concurrently, they would finish, and append, in reverse.
    const calls = [a!, b!].flatMap((episode_id, e) =>
      Array.from({ length: 6 }, (_, i) => ({
        name: "kv__append",
        arguments_json: JSON.stringify({ key: "log", value: String(i), delay_ms: (6 - i) * 15 }),
        episode_id,
        call_id: `${e}-${i}`,
      })),
    );
    const results = await gw.client.callTools({ calls });
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    const prefixes = ["0", "01", "012", "0123", "01234", "012345"];
    expect(results.map((r) => JSON.parse(r.structured_content_json).value)).toEqual([
      ...prefixes,
      ...prefixes,
    ]);
    expect(await gw.client.endEpisode(a!)).toEqual({ log: "012345" });
    expect(await gw.client.endEpisode(b!)).toEqual({ log: "012345" });
  });

  it("refuses calls without an episode, on an unknown id, or on another server's episode", async () => {
    const r = await gw.client.callTool({ name: "kv__get", arguments_json: '{"key":"a"}' });
    expect([r.error_code, r.error_message]).toEqual([
      "INVALID_ARGUMENTS",
      expect.stringContaining("episode_id"),
    ]);
    expect((await call("not-an-episode", "get", { key: "a" })).code).toBe("EPISODE_NOT_FOUND");
    expect(await rpcFailure(gw.client.snapshotEpisode("ep1.garbage"))).toBe("EPISODE_NOT_FOUND");
    expect(await rpcFailure(gw.client.startEpisode("nope"))).toBe("EPISODE_NOT_FOUND");
    const other = await gw.client.startEpisode("kv_crash");
    expect((await call(other, "get", { key: "a" })).code).toBe("INVALID_ARGUMENTS");
    await gw.client.endEpisode(other);
  });

  it("holds at most episodes.max_live live episodes per server", async () => {
    const [a, b] = [await gw.client.startEpisode("kv_limited"), await gw.client.startEpisode("kv_limited")];
    expect(await rpcFailure(gw.client.startEpisode("kv_limited"))).toBe("RATE_LIMITED");
    expect(await rpcFailure(gw.client.forkEpisode(a!, 1))).toBe("RATE_LIMITED");
    await gw.client.endEpisode(a!);
    const c = await gw.client.startEpisode("kv_limited");
    await Promise.all([b!, c].map((id) => gw.client.endEpisode(id)));
  });

  it("expires an idle episode: later operations answer EPISODE_NOT_FOUND", async () => {
    const id = await gw.client.startEpisode("kv_idle");
    const r = await gw.client.callTool({
      name: "kv_idle__put",
      arguments_json: '{"key":"a","value":"1"}',
      episode_id: id,
    });
    expect(r.error_code).toBe("OK");
    await waitFor(
      () => gw.gateway.episodes.liveCounts().get("kv_idle") === 0,
      20_000,
      "the idle episode to expire",
    );
    const after = await gw.client.callTool({
      name: "kv_idle__get",
      arguments_json: '{"key":"a"}',
      episode_id: id,
    });
    expect(after.error_code).toBe("EPISODE_NOT_FOUND");
    expect(await rpcFailure(gw.client.snapshotEpisode(id))).toBe("EPISODE_NOT_FOUND");
    // A ttl_ms shorter than the idle timeout ends it the same way.
    const short = await gw.client.startEpisode("kv", {}, 300);
    await waitFor(
      async () => (await rpcFailure(gw.client.snapshotEpisode(short))) === "EPISODE_NOT_FOUND",
      20_000,
      "ttl expiry",
    );
    const metrics = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/rlf_gateway_episodes_expired_total\{server="kv_idle"\} 1/);
  });

  it("answers EPISODE_LOST, never a fresh state, after the environment server is killed mid-episode", async () => {
    const id = await gw.client.startEpisode("kv_crash");
    const put = await gw.client.callTool({
      name: "kv_crash__put",
      arguments_json: '{"key":"a","value":"1"}',
      episode_id: id,
    });
    expect(put.error_code).toBe("OK");
    const [pid] = childrenWithRole("crash");
    expect(pid).toBeDefined();
    process.kill(pid!, "SIGKILL");
    const upstream = gw.gateway.upstreams.find((u) => u.name === "kv_crash")!;
    await waitFor(
      () => gw.gateway.episodes.liveCounts().get("kv_crash") === 0,
      20_000,
      "the gateway to see the server go",
    );
    const lost = await gw.client.callTool({
      name: "kv_crash__get",
      arguments_json: '{"key":"a"}',
      episode_id: id,
    });
    expect([lost.error_code, lost.structured_content_json]).toEqual(["EPISODE_LOST", ""]);
    // Still lost once a fresh server process is up: the id never reaches a new state.
    await waitFor(
      () => upstream.state === "ready" && childrenWithRole("crash").some((p) => p !== pid),
      30_000,
      "the respawn",
    );
    const again = await gw.client.callTool({
      name: "kv_crash__get",
      arguments_json: '{"key":"a"}',
      episode_id: id,
    });
    expect(again.error_code).toBe("EPISODE_LOST");
    expect(await rpcFailure(gw.client.snapshotEpisode(id))).toBe("EPISODE_LOST");
    const metrics = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/rlf_gateway_episodes_lost_total\{server="kv_crash"\} 1/);
    // The restarted server serves new episodes.
    const fresh = await gw.client.startEpisode("kv_crash");
    expect(await gw.client.endEpisode(fresh)).toEqual({});
  });

  it("offers the same operations over admin HTTP", async () => {
    const base = `${gw.gateway.adminUrl}/v1`;
    const json = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        ...(body !== undefined
          ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
          : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const started = await json("POST", "/episodes", { server: "kv", config: initial({ x: "0" }) });
    expect(started.status).toBe(200);
    const id = started.body.episode_id as string;
    const put = await json("POST", "/tools/kv__put:call", {
      arguments: { key: "y", value: "1" },
      episode_id: id,
    });
    expect([put.status, put.body.error_code]).toEqual([200, "OK"]);
    const forked = await json("POST", `/episodes/${id}:fork`, { count: 2 });
    expect((forked.body.episode_ids as string[]).length).toBe(2);
    expect(await json("GET", `/episodes/${id}/state`)).toEqual({
      status: 200,
      body: { state: { x: "0", y: "1" } },
    });
    expect(await json("DELETE", `/episodes/${id}`)).toEqual({
      status: 200,
      body: { state: { x: "0", y: "1" } },
    });
    expect((await json("DELETE", `/episodes/${id}`)).status).toBe(404);
    for (const f of forked.body.episode_ids as string[]) await json("DELETE", `/episodes/${f}`);
  });

  it("drives episodes from the rlf CLI", async () => {
    const rlf = (...args: string[]) =>
      promisify(execFile)(process.execPath, [RLF, ...args, "--gateway", gw.gateway.grpcAddress], {
        cwd: ROOT,
      });
    const id = (
      await rlf("episodes", "start", "kv", "--config", JSON.stringify(initial({ a: "1" })))
    ).stdout.trim();
    await rlf("tools", "call", "kv__put", "--episode", id, "--args", '{"key":"b","value":"2"}');
    const [fork] = (await rlf("episodes", "fork", id, "--count", "1")).stdout.trim().split("\n");
    expect(JSON.parse((await rlf("episodes", "state", fork!)).stdout)).toEqual({ a: "1", b: "2" });
    expect(JSON.parse((await rlf("episodes", "end", id)).stdout)).toEqual({ a: "1", b: "2" });
    await expect(rlf("episodes", "end", id)).rejects.toMatchObject({
      stderr: expect.stringContaining("EPISODE_NOT_FOUND"),
    });
    await gw.client.endEpisode(fork!);
  }, 120_000);
});
