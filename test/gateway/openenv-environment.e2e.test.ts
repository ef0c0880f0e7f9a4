// `rlf env openenv --stdio` behind a real gateway: OpenEnv environments (echo_env and coding_env laid out
// as in OpenEnv's repository, written against the installed `openenv` package's Environment / Action /
// Observation / State: test/support/python/openenv) served from the environments venv. Episodes start
// with reset, each Action class is a typed tool, an observation comes back as text with {reward, done,
// observation} structured, the snapshot holds the environment's state and the summed reward, a fork
// replays the episode's actions (and is refused when the replay observes something else, or when the
// server is started with --fork refuse).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ServiceError } from "@grpc/grpc-js";
import { BFCL_VENV } from "@rlfactory/environments";
import { type InProcessGateway, RLF, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENVS = join(ROOT, "test/support/python/openenv");

function haveOpenEnv(): boolean {
  const lib = join(BFCL_VENV, "lib");
  const installed = (python: string) =>
    existsSync(join(lib, python, "site-packages/openenv/core/env_server/interfaces.py"));
  if (existsSync(lib) && readdirSync(lib).some(installed)) return true;
  const message = "rlf env openenv: openenv is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

const server = (env: string, ...flags: string[]) => ({
  command: process.execPath,
  args: [RLF, "env", "openenv", "--env", env, "--path", ENVS, "--workers", "1", ...flags, "--stdio"],
});

describe.skipIf(!haveOpenEnv())("rlf env openenv behind the gateway", () => {
  let gw: InProcessGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        echo_env: server("echo_env"),
        coding_env: server("coding_env"),
        echo_nofork: server("echo_env", "--fork", "refuse", "--name", "echo_nofork"),
        mcp_echo: server("mcp_echo_env.server.echo_environment:EchoEnvironment", "--name", "mcp_echo"),
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
    return {
      code: r.error_code,
      isError: r.is_error,
      text: r.content[0]?.text?.text,
      structured: r.structured_content_json ? JSON.parse(r.structured_content_json) : undefined,
    };
  };
  const rpcFailure = (p: Promise<unknown>) =>
    p.then(
      () => "no error",
      (e: ServiceError) => e.details,
    );

  it("lists each Action class as a typed tool: the action's fields as the input schema", async () => {
    const [echo] = await gw.client.listTools("echo_env");
    expect(echo?.name).toBe("echo_env__echo");
    expect(echo?.description).toBe("Send a message to the environment, which echoes it back.");
    const schema = JSON.parse(echo!.input_schema_json);
    expect(schema.properties.message).toMatchObject({ type: "string", description: "the message to echo" });
    expect(schema.required).toEqual(["message"]);
    expect(Object.keys(schema.properties)).toEqual(["message"]);
    expect((await gw.client.listTools("coding_env")).map((t) => t.name)).toEqual(["coding_env__code"]);
  });

  it("echo_env: start → steps → snapshot → fork into 2 (replayed) → end; done after 5 steps", async () => {
    const id = await gw.client.startEpisode("echo_env", { seed: 7 });
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({
      observation: { echoed_message: "Echo environment ready!", message_length: 0 },
      reward: 0,
      done: false,
      steps: 0,
    });
    expect(await call(id, "echo_env__echo", { message: "hello" })).toEqual({
      code: "OK",
      isError: false,
      text: "echoed_message: hello\nmessage_length: 5",
      structured: { reward: 0.5, done: false, observation: { echoed_message: "hello", message_length: 5 } },
    });
    await call(id, "echo_env__echo", { message: "hi" });
    const state = (await gw.client.snapshotEpisode(id)) as Record<string, unknown>;
    expect(state).toMatchObject({ state: { step_count: 2 }, reward: 0.7, steps: 2 });
    expect(state.actions).toEqual([
      { action: "EchoAction", arguments: { message: "hello" } },
      { action: "EchoAction", arguments: { message: "hi" } },
    ]);

    const forks = await gw.client.forkEpisode(id, 2);
    await call(forks[0]!, "echo_env__echo", { message: "fork" });
    expect(await gw.client.snapshotEpisode(forks[0]!)).toMatchObject({ state: { step_count: 3 }, steps: 3 });
    expect(await gw.client.snapshotEpisode(forks[1]!)).toMatchObject({
      state: { step_count: 2 },
      reward: 0.7,
    });
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({ state: { step_count: 2 }, steps: 2 });

    for (const message of ["a", "b"]) await call(id, "echo_env__echo", { message });
    expect((await call(id, "echo_env__echo", { message: "last" })).structured).toMatchObject({ done: true });
    const after = await call(id, "echo_env__echo", { message: "more" });
    expect([after.code, after.isError, after.text]).toEqual([
      "OK",
      true,
      expect.stringContaining("episode is done"),
    ]);
    expect(await gw.client.endEpisode(id)).toMatchObject({ done: true, steps: 5 });
    expect(await rpcFailure(gw.client.snapshotEpisode(id))).toMatch(/^EPISODE_NOT_FOUND/);
    for (const f of forks) await gw.client.endEpisode(f);
  });

  it("refuses arguments that are not the action (the gateway checks the action's schema); the episode goes on", async () => {
    const id = await gw.client.startEpisode("echo_env");
    expect((await call(id, "echo_env__echo", { text: "x" })).code).toBe("INVALID_ARGUMENTS");
    expect((await call(id, "echo_env__echo", { message: 5 })).code).toBe("INVALID_ARGUMENTS");
    expect(await gw.client.endEpisode(id)).toMatchObject({ steps: 0 });
  });

  it("coding_env: a fork replays the code, so the fork has the episode's variables", async () => {
    const id = await gw.client.startEpisode("coding_env");
    expect(await call(id, "coding_env__code", { code: "x = 41\nprint(x + 1)" })).toMatchObject({
      text: "stdout: 42\n\nstderr: \nexit_code: 0",
      structured: { reward: 1, done: false },
    });
    const [fork] = await gw.client.forkEpisode(id, 1);
    expect((await call(fork!, "coding_env__code", { code: "x += 1\nprint(x)" })).structured).toMatchObject({
      observation: { stdout: "42\n", exit_code: 0 },
    });
    expect((await call(id, "coding_env__code", { code: "print(x)" })).structured.observation.stdout).toBe(
      "41\n",
    );
    const raised = await call(id, "coding_env__code", { code: "1 / 0" });
    expect(raised.structured).toMatchObject({ reward: -1, observation: { exit_code: 1 } });
    expect(raised.text).toContain("ZeroDivisionError");
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({
      reward: 1,
      steps: 3,
      state: { last_exit_code: 1 },
    });
    await gw.client.endEpisode(fork!);
    await gw.client.endEpisode(id);
  });

  it("refuses a fork whose replay observes something else (FORK_REFUSED), never a diverged copy", async () => {
    const id = await gw.client.startEpisode("coding_env");
    await call(id, "coding_env__code", { code: "import random\nprint(random.random())" });
    expect(await rpcFailure(gw.client.forkEpisode(id, 1))).toMatch(
      /^UPSTREAM_ERROR: .*FORK_REFUSED: replaying step 1/,
    );
    expect(await gw.client.endEpisode(id)).toMatchObject({ steps: 1 });
  });

  it("--fork refuse: every fork is refused; the episode goes on", async () => {
    const id = await gw.client.startEpisode("echo_nofork");
    await call(id, "echo_nofork__echo", { message: "x" });
    expect(await rpcFailure(gw.client.forkEpisode(id, 1))).toMatch(/FORK_REFUSED: .*fork refuse/);
    expect((await call(id, "echo_nofork__echo", { message: "y" })).structured).toMatchObject({ reward: 0.1 });
    expect(await gw.client.endEpisode(id)).toMatchObject({ steps: 2 });
  });

  it("an MCPEnvironment (FastMCP tools): its own tools, their text results, a fork by replay", async () => {
    const tools = await gw.client.listTools("mcp_echo");
    expect(tools.map((t) => t.name)).toEqual(["mcp_echo__echo_message", "mcp_echo__echo_with_length"]);
    expect(JSON.parse(tools[0]!.input_schema_json).properties.message).toMatchObject({ type: "string" });
    const id = await gw.client.startEpisode("mcp_echo");
    expect(await call(id, "mcp_echo__echo_message", { message: "hi" })).toMatchObject({
      code: "OK",
      isError: false,
      text: "hi",
      structured: { done: false, observation: { tool_name: "echo_message", error: null } },
    });
    expect((await call(id, "mcp_echo__echo_with_length", { message: "abc" })).text).toBe(
      '{"message":"abc","length":3}',
    );
    // its FastMCP server cannot be deep-copied or pickled: the fork is a replay
    const [fork] = await gw.client.forkEpisode(id, 1);
    await call(fork!, "mcp_echo__echo_message", { message: "more" });
    expect(await gw.client.snapshotEpisode(fork!)).toMatchObject({ steps: 3, state: { step_count: 3 } });
    expect(await gw.client.endEpisode(id)).toMatchObject({ steps: 2, state: { step_count: 2 } });
    await gw.client.endEpisode(fork!);
  });
});
