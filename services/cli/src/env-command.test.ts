// `rlf env python` over Streamable HTTP, driven by a plain MCP client (the contract suite drives it over
// stdio through a gateway): the reserved tools, the handle argument in the listed schemas, the state as
// the instance's attributes, tool errors the model sees, and "unknown episode" for a closed handle.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import { RLF, ROOT } from "@rlfactory/test-support/gateway-harness";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import { descendantsOf } from "@rlfactory/test-support/process-tree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KV = join(ROOT, "test/support/python/kv_environment.py");
const run = promisify(execFile);

/** The Python worker processes (an interpreter running env_worker.py, not its bwrap) among `pid`'s descendants. */
function workerPids(pid: number): number[] {
  return descendantsOf(pid).filter((p) => {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
      const argv0 = cmd.split("\0")[0] ?? "";
      return cmd.includes("env_worker.py") && /(^|\/)python[\d.]*$/.test(argv0);
    } catch {
      return false; // gone meanwhile
    }
  });
}

async function rlfFails(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [RLF, ...args], { cwd: ROOT, timeout: 30_000 });
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error(`rlf ${args.join(" ")} succeeded`);
}

describe("rlf env python --http", () => {
  let child: ChildProcess;
  let client: Client;

  beforeAll(async () => {
    child = spawn(process.execPath, [RLF, "env", "python", "--module", KV, "--class", "KV", "--http", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, LOG_LEVEL: "info" },
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`rlf env python exited with ${code}`)));
      createInterface({ input: child.stderr! }).on("line", (line) => {
        try {
          const rec = JSON.parse(line) as { msg?: string; url?: string };
          if (rec.msg === "listening" && rec.url) resolve(rec.url);
        } catch {
          // not JSON
        }
      });
    });
    client = await connectHttp(url, "2025-11-25");
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    child?.kill("SIGTERM");
  });

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  it("lists the reserved tools and the class's methods, each stateful tool with the episode handle required", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "episode_create",
      "episode_fork",
      "episode_snapshot",
      "episode_close",
      "episode_batch",
      "append",
      "get",
      "put",
    ]);
    const put = tools.find((t) => t.name === "put")!;
    expect(Object.keys(put.inputSchema.properties ?? {})).toEqual(["key", "value", "episode"]);
    expect(put.inputSchema.required).toEqual(["key", "value", "episode"]);
    expect(put.description).toContain("Sets key to value");
  });

  it("runs an episode from its config to its final state; a closed handle is an unknown episode", async () => {
    const created = await call("episode_create", { config: { initial: { a: "1" } } });
    const episode = (created.structuredContent as { episode: string }).episode;
    expect((await call("put", { key: "b", value: "2", episode })).structuredContent).toEqual({ ok: true });
    expect((await call("get", { key: "a", episode })).structuredContent).toEqual({ value: "1" });
    const bad = await call("append", { key: "a", episode });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]!.text).toMatch(/^BAD_ARGUMENTS: /);
    const forked = await call("episode_fork", { episode, count: 2 });
    const [left] = (forked.structuredContent as { episodes: string[] }).episodes;
    await call("put", { key: "c", value: "3", episode: left });
    expect((await call("episode_snapshot", { episode })).structuredContent).toEqual({
      state: { a: "1", b: "2" },
    });
    expect((await call("episode_close", { episode: left })).structuredContent).toEqual({
      state: { a: "1", b: "2", c: "3" },
    });
    expect((await call("episode_close", { episode })).structuredContent).toEqual({
      state: { a: "1", b: "2" },
    });
    const gone = await call("get", { key: "a", episode });
    expect(gone.isError).toBe(true);
    expect((gone.content as { text: string }[])[0]!.text).toMatch(/^unknown episode /);
  });

  it("answers a config the constructor refuses with a one-line tool error", async () => {
    const r = await call("episode_create", { config: { nope: 1 } });
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0]!.text).toMatch(/^BAD_CONFIG: /);
  });
});

describe("rlf env python: a worker that dies", () => {
  it("answers its episodes' calls with unknown episode (the gateway's EPISODE_LOST); new episodes go on", async () => {
    const child = spawn(
      process.execPath,
      [RLF, "env", "python", "--module", KV, "--class", "KV", "--workers", "1", "--http", "0"],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LOG_LEVEL: "info" } },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`rlf env python exited with ${code}`)));
        createInterface({ input: child.stderr! }).on("line", (line) => {
          try {
            const rec = JSON.parse(line) as { msg?: string; url?: string };
            if (rec.msg === "listening" && rec.url) resolve(rec.url);
          } catch {
            // not JSON
          }
        });
      });
      const client = await connectHttp(url, "2025-11-25");
      const created = await client.callTool({ name: "episode_create", arguments: { config: {} } });
      const episode = (created.structuredContent as { episode: string }).episode;
      await client.callTool({ name: "put", arguments: { key: "a", value: "1", episode } });
      const workers = workerPids(child.pid!);
      expect(workers).toHaveLength(1);
      process.kill(workers[0]!, "SIGKILL");
      const texts: string[] = [];
      for (const name of ["get", "episode_snapshot"]) {
        const r = await client.callTool({
          name,
          arguments: name === "get" ? { key: "a", episode } : { episode },
        });
        expect(r.isError).toBe(true);
        texts.push((r.content as { text: string }[])[0]!.text);
      }
      for (const text of texts) expect(text).toMatch(/^unknown episode /);
      const fresh = await client.callTool({ name: "episode_create", arguments: { config: {} } });
      const next = (fresh.structuredContent as { episode: string }).episode;
      expect(
        (await client.callTool({ name: "get", arguments: { key: "a", episode: next } })).structuredContent,
      ).toEqual({
        value: null,
      });
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);
});

describe("rlf env usage", () => {
  it("refuses a missing kind, a missing --module or --class, and a missing transport", async () => {
    expect(await rlfFails("env")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("rlf env python"),
    });
    expect(await rlfFails("env", "python", "--stdio")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("needs --module and --class"),
    });
    expect(await rlfFails("env", "bfcl")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("choose --stdio or --http PORT"),
    });
  });

  it("refuses rlf env gym / textarena without --id, with --kwargs that is not a JSON object", async () => {
    expect(await rlfFails("env", "gym", "--stdio")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("rlf env gym needs --id"),
    });
    expect(await rlfFails("env", "textarena", "--stdio")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("rlf env textarena needs --id"),
    });
    expect(await rlfFails("env", "gym", "--id", "FrozenLake-v1", "--kwargs", "[1]", "--stdio")).toMatchObject(
      {
        code: 2,
        stderr: expect.stringContaining("--kwargs must be a JSON object"),
      },
    );
  });
  it("refuses rlf env verifiers without one of --taskset / --toolset, a --config that is not an object, another --fork", async () => {
    for (const args of [["--stdio"], ["--taskset", "a:B", "--toolset", "a:C", "--stdio"]])
      expect(await rlfFails("env", "verifiers", ...args)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("needs --taskset MODULE:CLASS or --toolset MODULE:CLASS (one)"),
      });
    expect(
      await rlfFails("env", "verifiers", "--taskset", "a:B", "--config", "[1]", "--stdio"),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--config must be a JSON object"),
    });
    expect(
      await rlfFails("env", "verifiers", "--taskset", "a:B", "--fork", "replay", "--stdio"),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--fork must be copy or refuse"),
    });
  });
});
