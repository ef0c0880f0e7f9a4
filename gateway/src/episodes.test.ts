// Episode ids (what they carry; anything else is EPISODE_NOT_FOUND), and the LOST / NOT_FOUND rules over an
// in-memory environment server. The real thing, end to end: test/gateway/episodes.e2e.test.ts.
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { createMemoryStore } from "@rlfactory/kit";
import { pino } from "pino";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { buildAdminApp } from "./admin.ts";
import { ApiKeyAuth } from "./auth.ts";
import { ResultCache } from "./cache.ts";
import { Catalog } from "./catalog.ts";
import { normaliseConfig } from "./config.ts";
import { decodeEpisodeId, Episodes, encodeEpisodeId } from "./episodes.ts";
import { Invoker } from "./invoker.ts";
import { UpstreamPolicies } from "./policies.ts";
import type { Upstream, UpstreamState } from "./upstream.ts";

describe("episode ids", () => {
  it("carry the server, the server's handle and the process generation", () => {
    const ref = { server: "kv", handle: "3f2c-…-π", generation: "a1b2c3d4" };
    const id = encodeEpisodeId(ref);
    expect(id).toMatch(/^ep1\.[A-Za-z0-9_-]+$/);
    expect(decodeEpisodeId(id)).toEqual(ref);
  });

  it.each([
    "",
    "ep1.",
    "ep1.!!!",
    `ep1.${Buffer.from("[1,2]").toString("base64url")}`,
    `ep1.${Buffer.from('{"s":"kv","h":1,"g":""}').toString("base64url")}`,
    `ep2.${Buffer.from('{"s":"kv","h":"x","g":""}').toString("base64url")}`,
    `ep1.${"A".repeat(5_000)}`,
  ])("answers EPISODE_NOT_FOUND for %j", (id) => {
    expect(() => decodeEpisodeId(id)).toThrow(expect.objectContaining({ code: "EPISODE_NOT_FOUND" }));
  });
});

/** An environment server in memory: a handle → state map the test can make it lose. */
class FakeEnvironment extends EventEmitter implements Upstream {
  state: UpstreamState = "ready";
  detail = "";
  readonly name: string;
  readonly held = new Map<string, Record<string, string>>();
  /** Every reserved or stateful tool this server was asked to run, in order. */
  readonly calls: string[] = [];
  /** Episode creates and forks wait for this (many in flight at once). */
  gate: Promise<void> = Promise.resolve();
  /** Episode closes answer once this settles (the handle is gone before). */
  closeGate: Promise<void> = Promise.resolve();
  /** The server's own live-episode limit. */
  maxEpisodes = Number.POSITIVE_INFINITY;
  #next = 0;
  constructor(name: string) {
    super();
    this.name = name;
  }
  tools(): Tool[] {
    const handle = { episode: { type: "string" } };
    return [
      ...["episode_create", "episode_fork", "episode_snapshot", "episode_close"].map((name) => ({
        name,
        inputSchema: { type: "object" as const },
      })),
      {
        name: "put",
        inputSchema: {
          type: "object" as const,
          properties: { key: { type: "string" }, ...handle },
          required: ["key", "episode"],
        },
      },
    ];
  }
  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    this.calls.push(name);
    const ok = (structuredContent: Record<string, unknown>) => ({ content: [], structuredContent });
    const error = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });
    if (name === "episode_create" || name === "episode_fork") await this.gate;
    const count = name === "episode_fork" ? (args.count as number) : 1;
    if ((name === "episode_create" || name === "episode_fork") && this.held.size + count > this.maxEpisodes)
      return error(`episode limit reached: ${this.held.size} live, at most ${this.maxEpisodes}`);
    if (name === "episode_create") {
      const h = `${this.#next++}-${randomUUID()}`;
      this.held.set(h, {});
      return ok({ episode: h });
    }
    const state = this.held.get(args.episode as string);
    if (!state) return error(`unknown episode "${args.episode}"`);
    if (name === "episode_fork") {
      const hs = Array.from({ length: count }, () => `${this.#next++}-${randomUUID()}`);
      for (const h of hs) this.held.set(h, { ...state });
      return ok({ episodes: hs });
    }
    if (name === "put") state[args.key as string] = "set";
    if (name === "episode_close") {
      // like defineEnvironment: the handle is gone at once, the final state comes after earlier work
      this.held.delete(args.episode as string);
      await this.closeGate;
    }
    return ok({ state });
  }
  async start() {}
  async close() {}
}

function gatewayOver(upstream: FakeEnvironment, transport: Record<string, unknown>) {
  const config = normaliseConfig({ servers: { [upstream.name]: transport } });
  const catalog = new Catalog(config.servers, pino({ level: "silent" }));
  const episodes = new Episodes(config.servers, [upstream], catalog);
  catalog.track(upstream);
  const policies = new Map([[upstream.name, new UpstreamPolicies(config.servers[0]!.upstream)]]);
  const cache = new ResultCache(createMemoryStore({ maxEntries: 10, maxBytes: 1e6 }));
  const invoker = new Invoker(catalog, cache, policies, undefined, episodes);
  const put = async (episodeId: string) => {
    const span = trace.getTracer("test").startSpan("t");
    const o = await invoker.call(
      {
        name: `${upstream.name}__put`,
        argumentsJson: '{"key":"k"}',
        deadlineMs: 0,
        trajectoryId: "",
        bypassCache: false,
        callId: "",
        episodeId,
      },
      ROOT_CONTEXT,
      span,
    );
    span.end();
    return o.error?.code ?? "OK";
  };
  return { episodes, put };
}

describe("episodes over an in-memory environment server", () => {
  it("answers EPISODE_LOST, then always, when the server no longer holds a live episode", async () => {
    const env = new FakeEnvironment("env");
    const { episodes, put } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const lost: number[] = [];
    episodes.on("episode", (_s, event, n) => event === "lost" && lost.push(n));
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    expect(await put(id)).toBe("OK");
    env.held.clear(); // the server restarted, or dropped it
    expect(await put(id)).toBe("EPISODE_LOST");
    expect(await put(id)).toBe("EPISODE_LOST");
    await expect(episodes.snapshot(id, ROOT_CONTEXT)).rejects.toMatchObject({ code: "EPISODE_LOST" });
    expect(lost).toEqual([1]);
    expect(episodes.liveCounts().get("env")).toBe(0);
  });

  it("lists each server's live episodes oldest first, and forgets an ended one", async () => {
    const env = new FakeEnvironment("env");
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const first = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    const second = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    const listed = episodes.list();
    expect(listed.map((s) => s.server)).toEqual(["env"]);
    expect(listed[0]?.episodes.map((e) => e.episode_id)).toEqual([first, second]);
    await episodes.end(first, ROOT_CONTEXT);
    expect(episodes.list()[0]?.episodes.map((e) => e.episode_id)).toEqual([second]);
  });

  it("routes an id another gateway minted (HTTP server): no shared state needed", async () => {
    const env = new FakeEnvironment("env");
    const a = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const b = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const id = await a.episodes.start("env", "{}", 0, ROOT_CONTEXT);
    expect(await b.put(id)).toBe("OK");
    expect(await b.episodes.end(id, ROOT_CONTEXT)).toBe('{"k":"set"}');
    // Not live on b and gone from the server: b cannot tell lost from ended.
    expect(await b.put(id)).toBe("EPISODE_NOT_FOUND");
    expect(await a.put(id)).toBe("EPISODE_LOST");
  });

  it("loses every episode of a stdio server when its process goes, also after the respawn", async () => {
    const env = new FakeEnvironment("env");
    const { episodes, put } = gatewayOver(env, { command: "unused" });
    env.emit("state", "ready");
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    expect(await put(id)).toBe("OK");
    env.emit("state", "down");
    expect(episodes.liveCounts().get("env")).toBe(0);
    env.emit("state", "ready"); // a new process: the same handle would be a fresh state there
    env.held.set(decodeEpisodeId(id).handle, {});
    expect(await put(id)).toBe("EPISODE_LOST");
    expect(await put(await episodes.start("env", "{}", 0, ROOT_CONTEXT))).toBe("OK");
  });
});

/** `{"a":{"a":...{}}}` nested `depth` levels deep. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
}

describe("episode configs held to the server's argument limits", () => {
  it("refuses a config nested past max_argument_depth before the server sees it", async () => {
    const env = new FakeEnvironment("env");
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const err = await episodes.start("env", nested(2_000), 0, ROOT_CONTEXT).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect((err as Error).message).toContain("max_argument_depth is 64");
    // 64 levels is the limit itself: accepted.
    await episodes.start("env", nested(64), 0, ROOT_CONTEXT);
    expect(env.calls).toEqual(["episode_create"]);
  });

  it("refuses a config over max_argument_bytes with ARGUMENTS_TOO_LARGE, naming the limit", async () => {
    const env = new FakeEnvironment("env");
    const { episodes } = gatewayOver(env, {
      url: "http://127.0.0.1:9/mcp",
      tools: { episode_create: { max_argument_bytes: 1_000, max_argument_depth: 4 } },
    });
    const big = JSON.stringify({ blob: "x".repeat(1_000) });
    await expect(episodes.start("env", big, 0, ROOT_CONTEXT)).rejects.toMatchObject({
      code: "ARGUMENTS_TOO_LARGE",
      message: expect.stringContaining("max_argument_bytes"),
    });
    await expect(episodes.start("env", nested(5), 0, ROOT_CONTEXT)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringContaining("max_argument_depth is 4"),
    });
    expect(env.calls).toEqual([]);
  });
});

describe("the live-episode limit under concurrency", () => {
  it("holds max_live for 200 concurrent StartEpisode and 10 concurrent ForkEpisode(5)", async () => {
    const env = new FakeEnvironment("env");
    const { episodes } = gatewayOver(env, {
      url: "http://127.0.0.1:9/mcp",
      policy: { episodes: { max_live: 20 } },
    });
    let open = () => {};
    env.gate = new Promise((resolve) => {
      open = resolve;
    });
    const starts = Array.from({ length: 200 }, () => episodes.start("env", "{}", 0, ROOT_CONTEXT));
    open();
    const started = await Promise.allSettled(starts);
    const ok = started.filter((r) => r.status === "fulfilled").map((r) => r.value);
    expect(ok).toHaveLength(20);
    expect(started.filter((r) => r.status === "rejected").map((r) => r.reason.code)).toEqual(
      Array(180).fill("RATE_LIMITED"),
    );
    expect(env.held.size).toBe(20);
    // 4 live, room for 16: of 10 concurrent forks of 5, three fit
    for (const id of ok.slice(0, 16)) await episodes.end(id, ROOT_CONTEXT);
    env.gate = new Promise((resolve) => {
      open = resolve;
    });
    const forks = Array.from({ length: 10 }, () => episodes.fork(ok[19]!, 5, ROOT_CONTEXT));
    open();
    const forked = await Promise.allSettled(forks);
    expect(forked.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    expect(forked.filter((r) => r.status === "rejected").map((r) => r.reason.code)).toEqual(
      Array(7).fill("RATE_LIMITED"),
    );
    expect(episodes.liveCounts().get("env")).toBe(19);
    expect(env.held.size).toBe(19);
  });

  it("answers the environment server's own limit RATE_LIMITED, like max_live", async () => {
    const env = new FakeEnvironment("env");
    env.maxEpisodes = 1;
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    await expect(episodes.start("env", "{}", 0, ROOT_CONTEXT)).rejects.toMatchObject({
      code: "RATE_LIMITED",
      message: expect.stringContaining("episode limit reached"),
    });
    await expect(episodes.fork(id, 1, ROOT_CONTEXT)).rejects.toMatchObject({ code: "RATE_LIMITED" });
  });
});

describe("lost means lost", () => {
  it("answers a second concurrent EndEpisode EPISODE_NOT_FOUND and counts no loss", async () => {
    const env = new FakeEnvironment("env");
    const { episodes, put } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const events: string[] = [];
    episodes.on("episode", (_s, event, n) => events.push(`${event}:${n}`));
    for (let round = 0; round < 10; round++) {
      const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
      let open = () => {};
      env.closeGate = new Promise((resolve) => {
        open = resolve;
      });
      const first = episodes.end(id, ROOT_CONTEXT);
      const second = episodes.end(id, ROOT_CONTEXT).catch((e: { code: string }) => e.code);
      // a call that reaches the server once the handle is gone there is not a loss either
      const closes = round + 1;
      for (let i = 0; i < 1_000 && env.calls.filter((c) => c === "episode_close").length < closes; i++)
        await new Promise(setImmediate);
      const during = put(id);
      expect(await during).toBe("EPISODE_NOT_FOUND");
      open();
      expect(await first).toBe("{}");
      expect(await second).toBe("EPISODE_NOT_FOUND");
      expect(await put(id)).toBe("EPISODE_NOT_FOUND");
    }
    expect(events.filter((e) => e.startsWith("lost"))).toEqual([]);
    expect(events.filter((e) => e === "ended:1")).toHaveLength(10);
  });

  it("refuses aliases of an id (keys reordered, whitespace, more keys) instead of routing them", async () => {
    const env = new FakeEnvironment("env");
    const { episodes, put } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    const { server, handle, generation } = decodeEpisodeId(id);
    const alias = (body: string) => `ep1.${Buffer.from(body).toString("base64url")}`;
    const s = JSON.stringify(server);
    const h = JSON.stringify(handle);
    const g = JSON.stringify(generation);
    for (const other of [
      alias(`{"h":${h},"s":${s},"g":${g}}`),
      alias(`{"s": ${s}, "h": ${h}, "g": ${g}}`),
      alias(`{"s":${s},"h":${h},"g":${g},"x":1}`),
      `${id}=`,
    ]) {
      expect(await put(other)).toBe("EPISODE_NOT_FOUND");
      await expect(episodes.end(other, ROOT_CONTEXT)).rejects.toMatchObject({ code: "EPISODE_NOT_FOUND" });
    }
    expect(await put(id)).toBe("OK");
    expect(env.calls.filter((c) => c === "episode_close")).toEqual([]);
  });
});

describe("the admin API's episode routes", () => {
  function adminOver(env: FakeEnvironment) {
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const config = normaliseConfig({ servers: { [env.name]: { url: "http://127.0.0.1:9/mcp" } } });
    const catalog = new Catalog(config.servers, pino({ level: "silent" }));
    const admin = buildAdminApp({
      invoker: new Invoker(
        catalog,
        new ResultCache(createMemoryStore({ maxEntries: 1, maxBytes: 1e3 })),
        new Map(),
      ),
      catalog,
      episodes,
      upstreams: [env],
      policies: new Map(),
      metrics: new Registry(),
      auth: new ApiKeyAuth([]),
      bodyLimitBytes: 4 * 1024 * 1024,
    });
    return { episodes, admin };
  }

  it("take real ids (longer than fastify's 100-character path parameters): fork, state, end", async () => {
    const env = new FakeEnvironment("a-long-environment-server-name-for-ids");
    const { episodes, admin } = adminOver(env);
    try {
      const id = await episodes.start(env.name, "{}", 0, ROOT_CONTEXT);
      expect(id.length).toBeGreaterThan(100);
      const fork = await admin.inject({
        method: "POST",
        url: `/v1/episodes/${id}:fork`,
        payload: { count: 2 },
      });
      expect(fork.statusCode).toBe(200);
      const [copy] = fork.json().episode_ids as string[];
      const state = await admin.inject({ method: "GET", url: `/v1/episodes/${copy}/state` });
      expect(state.statusCode).toBe(200);
      expect(state.json()).toEqual({ state: {} });
      const end = await admin.inject({ method: "DELETE", url: `/v1/episodes/${id}` });
      expect(end.statusCode).toBe(200);
      const again = await admin.inject({ method: "DELETE", url: `/v1/episodes/${id}` });
      expect([again.statusCode, again.json().error.code]).toEqual([404, "EPISODE_NOT_FOUND"]);
    } finally {
      await admin.close();
    }
  });

  it("refuses a config nested 200,000 deep with 400 INVALID_ARGUMENTS (not 500), before the server", async () => {
    const env = new FakeEnvironment("env");
    const { admin } = adminOver(env);
    try {
      const depth = 200_000;
      const res = await admin.inject({
        method: "POST",
        url: "/v1/episodes",
        headers: { "content-type": "application/json" },
        payload: `{"server":"env","config":${'{"a":'.repeat(depth)}{}${"}".repeat(depth)}}`,
      });
      expect([res.statusCode, res.json().error.code]).toEqual([400, "INVALID_ARGUMENTS"]);
      expect(res.json().error.message).toContain("max_argument_depth is 64");
      const big = await admin.inject({
        method: "POST",
        url: "/v1/episodes",
        payload: { server: "env", config: { blob: "x".repeat(1024 * 1024) } },
      });
      expect([big.statusCode, big.json().error.code]).toEqual([413, "ARGUMENTS_TOO_LARGE"]);
      expect(env.calls).toEqual([]);
    } finally {
      await admin.close();
    }
  });
});

describe("SnapshotEpisode", () => {
  it("holds the state to 16 MiB by default, or tools.episode_snapshot's max_output_bytes, with OUTPUT_TOO_LARGE naming the limit; the episode goes on", async () => {
    const env = new FakeEnvironment("env");
    // A 2 MiB state (a database environment's) passes the default although outputs are held to 1 MiB.
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    env.held.set(decodeEpisodeId(id).handle, { blob: "x".repeat(2 * 1024 * 1024) });
    const state = JSON.parse(await episodes.snapshot(id, ROOT_CONTEXT)) as Record<string, string>;
    expect(state.blob?.length).toBe(2 * 1024 * 1024);

    const tight = gatewayOver(env, {
      url: "http://127.0.0.1:9/mcp",
      tools: { episode_snapshot: { max_output_bytes: 1024 * 1024 } },
    });
    const tightId = await tight.episodes.start("env", "{}", 0, ROOT_CONTEXT);
    env.held.set(decodeEpisodeId(tightId).handle, { blob: "x".repeat(2 * 1024 * 1024) });
    const err = await tight.episodes.snapshot(tightId, ROOT_CONTEXT).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "OUTPUT_TOO_LARGE" });
    expect((err as Error).message).toMatch(
      /state is 2097163 bytes; the limit is 1048576 \(tools\.episode_snapshot\.max_output_bytes\)/,
    );
    expect(tight.episodes.liveCounts().get("env")).toBe(1);

    env.held.set(decodeEpisodeId(id).handle, { blob: "x".repeat(17 * 1024 * 1024) });
    await expect(episodes.snapshot(id, ROOT_CONTEXT)).rejects.toMatchObject({
      code: "OUTPUT_TOO_LARGE",
      message: expect.stringContaining("the limit is 16777216"),
    });
  });

  it("answers the environment server's own state limit OUTPUT_TOO_LARGE", async () => {
    const env = new FakeEnvironment("env");
    const { episodes } = gatewayOver(env, { url: "http://127.0.0.1:9/mcp" });
    const id = await episodes.start("env", "{}", 0, ROOT_CONTEXT);
    const callTool = env.callTool.bind(env);
    env.callTool = async (name, args) =>
      name === "episode_snapshot"
        ? {
            content: [
              { type: "text", text: "episode state too large: 20000000 bytes; the limit is 16777216" },
            ],
            isError: true,
          }
        : callTool(name, args);
    await expect(episodes.snapshot(id, ROOT_CONTEXT)).rejects.toMatchObject({
      code: "OUTPUT_TOO_LARGE",
      message: expect.stringContaining("the limit is 16777216"),
    });
  });
});
