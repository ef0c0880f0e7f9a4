// `rlf env verifiers --stdio` behind a real gateway: a verifiers environment written with the installed
// `verifiers` package (test/support/python/verifiers/counter_env.py: a Taskset of counting tasks, a
// per-rollout Toolset keeping the count in the rollout's State, a @vf.reward rubric) served from the
// environments venv. Episodes pick a task; each is a fresh rollout state; the snapshot holds the state and
// the rubric's rewards scored on it; a fork copies the state (or is refused with --fork refuse); the
// Toolset alone is served with one command (--toolset).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ServiceError } from "@grpc/grpc-js";
import { BFCL_VENV } from "@rlfactory/environments";
import { type InProcessGateway, RLF, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENVS = join(ROOT, "test/support/python/verifiers");

function haveVerifiers(what: string): boolean {
  const lib = join(BFCL_VENV, "lib");
  const installed = (python: string) =>
    existsSync(join(lib, python, "site-packages/verifiers/v1/taskset.py"));
  if (existsSync(lib) && readdirSync(lib).some(installed)) return true;
  const message = `${what}: verifiers is not installed (run npm run setup:environments)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const server = (name: string, ...flags: string[]) => ({
  command: process.execPath,
  args: [RLF, "env", "verifiers", ...flags, "--path", ENVS, "--workers", "1", "--name", name, "--stdio"],
});

describe.skipIf(!haveVerifiers("rlf env verifiers"))("rlf env verifiers behind the gateway", () => {
  let gw: InProcessGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        counter: server(
          "counter",
          "--taskset",
          "counter_env:CounterTaskset",
          "--config",
          '{"targets": [2, 3]}',
        ),
        counter_nofork: server(
          "counter_nofork",
          "--taskset",
          "counter_env:CounterTaskset",
          "--fork",
          "refuse",
        ),
        counter_tools: server("counter_tools", "--toolset", "counter_env:CounterToolset"),
      },
    });
  }, 120_000);
  afterAll(() => gw?.stop());

  const call = async (episodeId: string, tool: string, args: Record<string, unknown>) => {
    const r = await gw.client.callTool({
      name: tool,
      arguments_json: JSON.stringify(args),
      episode_id: episodeId,
    });
    return { code: r.error_code, text: r.content[0]?.text?.text };
  };
  const rpcFailure = (p: Promise<unknown>) =>
    p.then(
      () => "no error",
      (e: ServiceError) => e.details,
    );

  it("lists each @vf.tool with verifiers' name and a schema typed from its signature", async () => {
    const tools = await gw.client.listTools("counter");
    expect(tools.map((t) => t.name)).toEqual(["counter__counter_add", "counter__counter_read"]);
    expect(tools[0]?.description).toBe("Add amount to the count and return the new count.");
    expect(JSON.parse(tools[0]!.input_schema_json)).toMatchObject({
      properties: { amount: { type: "integer" } },
      required: ["amount"],
    });
  });

  it("start (a task) → calls → snapshot with the rubric → fork → end; each episode its own state", async () => {
    const id = await gw.client.startEpisode("counter", { task: "count-to-3" });
    const other = await gw.client.startEpisode("counter", { task: 0 });
    expect(await call(id, "counter__counter_add", { amount: 2 })).toEqual({ code: "OK", text: "count is 2" });
    expect(await call(other, "counter__counter_read", {})).toEqual({ code: "OK", text: "0" });
    expect(await gw.client.snapshotEpisode(id)).toEqual({
      state: { count: 2, history: [2] },
      task: { idx: 1, id: "count-to-3" },
      rewards: { reached: 0 },
      metrics: { steps: 1 },
      reward: 0,
    });

    const [fork] = await gw.client.forkEpisode(id, 1);
    expect(await call(fork!, "counter__counter_add", { amount: 1 })).toEqual({
      code: "OK",
      text: "count is 3",
    });
    expect(await gw.client.snapshotEpisode(fork!)).toMatchObject({ rewards: { reached: 1 }, reward: 1 });
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({ state: { count: 2 }, reward: 0 });

    expect((await call(id, "counter__counter_add", { amount: "two" })).code).not.toBe("OK");
    expect(await gw.client.endEpisode(fork!)).toMatchObject({
      state: { count: 3, history: [2, 1] },
      reward: 1,
    });
    expect(await gw.client.endEpisode(id)).toMatchObject({ state: { count: 2 } });
    expect(await rpcFailure(gw.client.snapshotEpisode(id))).toMatch(/^EPISODE_NOT_FOUND/);
    await gw.client.endEpisode(other);
  });

  it("refuses a fork with a typed error under --fork refuse, and an unknown task at start", async () => {
    const id = await gw.client.startEpisode("counter_nofork", { task: 1 });
    expect(await rpcFailure(gw.client.forkEpisode(id, 1))).toMatch(/FORK_REFUSED/);
    await gw.client.endEpisode(id);
    expect(await rpcFailure(gw.client.startEpisode("counter_nofork", { task: "count-to-99" }))).toMatch(
      /no task 'count-to-99'/,
    );
  });

  it("serves a Toolset alone with one command: tools and per-episode state, no rubric", async () => {
    const a = await gw.client.startEpisode("counter_tools");
    const b = await gw.client.startEpisode("counter_tools");
    expect(await call(a, "counter_tools__counter_add", { amount: 4 })).toEqual({
      code: "OK",
      text: "count is 4",
    });
    expect(await call(b, "counter_tools__counter_add", { amount: 1 })).toEqual({
      code: "OK",
      text: "count is 1",
    });
    expect(await gw.client.endEpisode(a)).toEqual({ state: { count: 4, history: [4] } });
    expect(await gw.client.endEpisode(b)).toEqual({ state: { count: 1, history: [1] } });
  });
});
