// Episodes on third-party stateful MCP servers that know nothing of episodes, run as one process per
// episode (a server entry's `episodes: {isolate: process}`, docs/environments.md): the installed
// `@modelcontextprotocol/server-memory` and `@modelcontextprotocol/server-filesystem`, unchanged, as
// stdio children of a real gateway, driven over gRPC on loopback. Processes are counted and found by a
// marker in their environment (each entry's own), never by timing.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceError } from "@grpc/grpc-js";
import {
  type InProcessGateway,
  ROOT,
  startTestGateway,
  tempDir,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { childrenWithEnv } from "@rlfactory/test-support/process-tree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MEMORY = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
/** The marker env var of this suite's server processes: which entry a process belongs to. */
const ROLE = "RLF_TEST_ISOLATE_ROLE";
const processes = (role: string) => childrenWithEnv(`${ROLE}=${role}`);
const alive = (pid: number) => existsSync(`/proc/${pid}`);

interface Graph {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: unknown[];
}

describe("episodes on any stateful MCP server: one process per episode", () => {
  let gw: InProcessGateway;

  beforeAll(async () => {
    const memory = (role: string, episodes: Record<string, unknown>) => ({
      command: process.execPath,
      args: [MEMORY],
      // server-memory keeps its graph in a file: each instance its own, in its own directory.
      env: { MEMORY_FILE_PATH: "{workdir}/memory.jsonl", [ROLE]: role },
      episodes: { isolate: "process", workdir: "temp", ...episodes },
    });
    // A directory each `seeded` instance gets its own copy of.
    const seed = join(tempDir("rlf-isolate-seed-"), "seed");
    mkdirSync(seed);
    writeFileSync(join(seed, "hello.txt"), "hello");
    gw = await startTestGateway({
      servers: {
        memory: memory("memory", {
          pool: { warm: 2, max: 24 },
          fork: "replay",
          snapshot: { tool: "read_graph" },
        }),
        memory_cold: memory("cold", { pool: { warm: 0, max: 2 } }),
        memory_full: memory("full", { pool: { warm: 4, max: 4 } }),
        memory_idle: {
          ...memory("idle", { pool: { warm: 0 } }),
          policy: { episodes: { idle_timeout_ms: 300 } },
        },
        files: {
          command: process.execPath,
          args: [FILESYSTEM, "{workdir}"],
          env: { [ROLE]: "files" },
          episodes: {
            isolate: "process",
            workdir: "temp",
            pool: { warm: 1 },
            fork: "replay",
            snapshot: { tool: "list_directory", arguments: { path: "{workdir}" } },
          },
        },
        // The model never sees the path: the gateway sets it on every call, per instance.
        seeded: {
          command: process.execPath,
          args: [FILESYSTEM, "{workdir}"],
          env: { [ROLE]: "seeded" },
          include: ["list_directory"],
          episodes: {
            isolate: "process",
            workdir: { copy: seed },
            pool: { warm: 0 },
            fixed_arguments: { path: "{workdir}/seed" },
          },
        },
      },
    });
  }, 120_000);
  afterAll(() => gw?.stop());

  const call = async (episodeId: string, name: string, args: Record<string, unknown>) => {
    const r = await gw.client.callTool({ name, arguments_json: JSON.stringify(args), episode_id: episodeId });
    return {
      code: r.error_code,
      isError: r.is_error,
      message: r.error_message,
      value: r.structured_content_json ? (JSON.parse(r.structured_content_json) as unknown) : undefined,
    };
  };
  const create = (id: string, name: string, server = "memory") =>
    call(id, `${server}__create_entities`, {
      entities: [{ name, entityType: "sample", observations: [`made by ${name}`] }],
    });
  const graph = async (id: string, server = "memory") =>
    (await call(id, `${server}__read_graph`, {})).value as Graph;
  const names = (g: Graph) => g.entities.map((e) => e.name).sort();
  const rpcFailure = (p: Promise<unknown>) =>
    p.then(
      () => "no error",
      (e: ServiceError) => e.details.split(":")[0],
    );

  it("keeps pool.warm idle processes started, and one more per live episode", async () => {
    await waitFor(() => processes("memory").length === 2, 60_000, "2 warm memory processes");
    const ids = await Promise.all([1, 2, 3].map(() => gw.client.startEpisode("memory")));
    // 3 held by episodes, and the pool refilled to 2 idle ones.
    await waitFor(() => processes("memory").length === 5, 60_000, "3 held + 2 warm processes");
    // A refill's process exists before it has connected (state "starting"): wait for both to be idle.
    const instanceMetrics = async () =>
      (await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text()).split("\n");
    await waitFor(
      async () =>
        (await instanceMetrics()).includes('rlf_gateway_episode_instances{server="memory",state="idle"} 2'),
      60_000,
      "the 2 refilled processes connected",
    );
    const metrics = (await instanceMetrics()).join("\n");
    expect(metrics).toContain('rlf_gateway_episode_instances{server="memory",state="busy"} 3');
    expect(metrics).toContain('rlf_gateway_episode_instances{server="memory",state="idle"} 2');
    await Promise.all(ids.map((id) => gw.client.endEpisode(id)));
    await waitFor(() => processes("memory").length === 2, 60_000, "back to 2 warm processes");
  });

  it("at pool.max, a StartEpisode waits for a warm process being started instead of failing", async () => {
    await waitFor(() => processes("full").length === 4, 60_000, "4 warm memory_full processes");
    const first = await Promise.all([1, 2, 3, 4].map(() => gw.client.startEpisode("memory_full")));
    expect(await rpcFailure(gw.client.startEpisode("memory_full"))).toBe("RATE_LIMITED");
    // Ending them starts 4 replacements; a group that arrives meanwhile gets those, not RATE_LIMITED.
    await Promise.all(first.map((id) => gw.client.endEpisode(id)));
    const second = await Promise.all([1, 2, 3, 4].map(() => gw.client.startEpisode("memory_full")));
    const graphs = await Promise.all(
      second.map((id, i) => create(id, `s${i}`, "memory_full").then(() => graph(id, "memory_full"))),
    );
    expect(graphs.map(names)).toEqual([["s0"], ["s1"], ["s2"], ["s3"]]);
    await Promise.all(second.map((id) => gw.client.endEpisode(id)));
  });

  it("an idle episode expires: its process is stopped, later calls are EPISODE_NOT_FOUND", async () => {
    await waitFor(() => processes("idle").length === 0, 60_000, "no idle memory_idle process");
    const id = await gw.client.startEpisode("memory_idle");
    const [pid] = processes("idle");
    await waitFor(() => !alive(pid!), 60_000, "the expired episode's process gone");
    expect((await call(id, "memory_idle__read_graph", {})).code).toBe("EPISODE_NOT_FOUND");
  });

  it("a GRPO group of 8: each episode sees only its own graph", async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => gw.client.startEpisode("memory")));
    expect(new Set(ids).size).toBe(8);
    const created = await Promise.all(ids.map((id, i) => create(id, `sample-${i}`)));
    expect(created.map((c) => [c.code, c.isError])).toEqual(ids.map(() => ["OK", false]));
    // The same turn: every sample reads its graph at once.
    const graphs = await Promise.all(ids.map((id) => graph(id)));
    expect(graphs.map(names)).toEqual(ids.map((_, i) => [`sample-${i}`]));
    // The final state is the snapshot tool's result (read_graph).
    const finals = (await Promise.all(ids.map((id) => gw.client.endEpisode(id)))) as Graph[];
    expect(finals.map(names)).toEqual(ids.map((_, i) => [`sample-${i}`]));
  });

  it("forks by replay: the copies start with the parent's graph, then diverge", async () => {
    const parent = await gw.client.startEpisode("memory");
    await create(parent, "root");
    await call(parent, "memory__add_observations", {
      observations: [{ entityName: "root", contents: ["seen twice"] }],
    });
    const before = await gw.client.snapshotEpisode(parent);
    const [a, b] = await gw.client.forkEpisode(parent, 2);
    expect(await gw.client.snapshotEpisode(a!)).toEqual(before);
    expect(await gw.client.snapshotEpisode(b!)).toEqual(before);
    await create(a!, "left");
    await create(b!, "right");
    expect(names(await graph(parent))).toEqual(["root"]);
    expect(names(await graph(a!))).toEqual(["left", "root"]);
    expect(names(await graph(b!))).toEqual(["right", "root"]);
    // A fork of a fork replays both generations' calls.
    const [c] = await gw.client.forkEpisode(a!, 1);
    expect(names(await graph(c!))).toEqual(["left", "root"]);
    expect((await graph(c!)).entities.find((e) => e.name === "root")?.observations).toEqual([
      "made by root",
      "seen twice",
    ]);
    for (const id of [parent, a!, b!, c!]) await gw.client.endEpisode(id);
  });

  it("ends an episode by killing its process; a call after that is EPISODE_NOT_FOUND", async () => {
    // warm 0: no idle process once the one that listed the tools is gone.
    await waitFor(() => processes("cold").length === 0, 60_000, "no idle memory_cold process");
    const id = await gw.client.startEpisode("memory_cold");
    const [pid] = processes("cold");
    expect(processes("cold")).toHaveLength(1);
    expect((await call(id, "memory_cold__create_entities", { entities: [] })).code).toBe("OK");
    // No snapshot tool and fork: refuse: both typed refusals, and the episode goes on.
    expect(await rpcFailure(gw.client.snapshotEpisode(id))).toBe("UNSUPPORTED");
    expect(await rpcFailure(gw.client.forkEpisode(id, 1))).toBe("UNSUPPORTED");
    expect(alive(pid!)).toBe(true);
    expect(await gw.client.endEpisode(id)).toBeNull();
    expect(alive(pid!)).toBe(false);
    expect((await call(id, "memory_cold__read_graph", {})).code).toBe("EPISODE_NOT_FOUND");
    expect(await rpcFailure(gw.client.endEpisode(id))).toBe("EPISODE_NOT_FOUND");
  });

  it("holds at most pool.max processes: past it StartEpisode is RATE_LIMITED", async () => {
    const held = [await gw.client.startEpisode("memory_cold"), await gw.client.startEpisode("memory_cold")];
    expect(await rpcFailure(gw.client.startEpisode("memory_cold"))).toBe("RATE_LIMITED");
    for (const id of held) await gw.client.endEpisode(id);
    await gw.client.endEpisode(await gw.client.startEpisode("memory_cold"));
  });

  it("a call without an episode is INVALID_ARGUMENTS; an episode that loses its process is EPISODE_LOST", async () => {
    const r = await gw.client.callTool({ name: "memory__read_graph", arguments_json: "{}" });
    expect([r.error_code, r.error_message]).toEqual([
      "INVALID_ARGUMENTS",
      expect.stringContaining("episode_id"),
    ]);
    await waitFor(() => processes("cold").length === 0, 60_000, "no memory_cold process");
    const id = await gw.client.startEpisode("memory_cold");
    const [pid] = processes("cold");
    process.kill(pid!, "SIGKILL");
    await waitFor(
      async () => (await call(id, "memory_cold__read_graph", {})).code === "EPISODE_LOST",
      60_000,
      "EPISODE_LOST after the process died",
    );
    expect(await rpcFailure(gw.client.endEpisode(id))).toBe("EPISODE_LOST");
  });

  it("gives each filesystem episode its own root: a file written in one is absent in another", async () => {
    const [a, b] = [await gw.client.startEpisode("files"), await gw.client.startEpisode("files")];
    const written = await call(a!, "files__write_file", { path: "notes.txt", content: "only in a" });
    expect([written.code, written.isError]).toEqual(["OK", false]);
    const inA = await call(a!, "files__read_text_file", { path: "notes.txt" });
    expect(inA.value).toEqual({ content: "only in a" });
    const inB = await call(b!, "files__read_text_file", { path: "notes.txt" });
    expect([inB.code, inB.isError]).toEqual(["OK", true]);
    // A fork replays the write: the copy has the file, and what it writes then is its own.
    const [c] = await gw.client.forkEpisode(a!, 1);
    expect((await call(c!, "files__read_text_file", { path: "notes.txt" })).value).toEqual({
      content: "only in a",
    });
    await call(c!, "files__write_file", { path: "notes.txt", content: "changed in c" });
    expect((await call(a!, "files__read_text_file", { path: "notes.txt" })).value).toEqual({
      content: "only in a",
    });
    await gw.client.endEpisode(c!);
    // The snapshot tool's arguments get the instance's directory too.
    expect(JSON.stringify(await gw.client.snapshotEpisode(a!))).toContain("notes.txt");
    expect(JSON.stringify(await gw.client.snapshotEpisode(b!))).not.toContain("notes.txt");
    // Ending removes the episode's directory with its process.
    const roots = () => readdirSync(tmpdir()).filter((d) => d.startsWith("rlf-files-"));
    const before = roots().length;
    await gw.client.endEpisode(a!);
    await gw.client.endEpisode(b!);
    expect(roots().length).toBe(before - 2);
  });

  it("copies workdir.copy into each instance and sets fixed_arguments the model never sees", async () => {
    const [tool] = await gw.client.listTools("seeded");
    expect(tool?.name).toBe("seeded__list_directory");
    expect(JSON.parse(tool!.input_schema_json).properties).toEqual({});
    const [a, b] = [await gw.client.startEpisode("seeded"), await gw.client.startEpisode("seeded")];
    for (const id of [a!, b!]) {
      const r = await gw.client.callTool({
        name: "seeded__list_directory",
        arguments_json: "{}",
        episode_id: id,
      });
      expect([r.error_code, r.is_error, r.structured_content_json]).toEqual([
        "OK",
        false,
        JSON.stringify({ content: "[FILE] hello.txt" }),
      ]);
    }
    for (const id of [a!, b!]) await gw.client.endEpisode(id);
  });
});
