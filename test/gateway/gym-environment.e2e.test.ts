// `rlf env gym` (Gymnasium's FrozenLake, not slippery) and `rlf env textarena` (GuessTheNumber) behind
// a real gateway, with the packages as installed in the environments venv: the catalog holds only
// reset/step/render (no set_wrapper_attr), step's action is typed from the action space with its
// meaning, observations come back as plain text (the ANSI grid, never a JSON-quoted string) with the
// episode's reward in the structured content; episodes start, fork, snapshot and end.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BFCL_VENV } from "@rlfactory/environments";
import { type InProcessGateway, RLF, ROOT, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function haveGym(): boolean {
  const lib = join(BFCL_VENV, "lib");
  const found =
    existsSync(lib) &&
    readdirSync(lib).some((python) =>
      ["gymnasium", "textarena"].every((p) => existsSync(join(lib, python, "site-packages", p))),
    );
  if (found) return true;
  const message = "rlf env gym: gymnasium/textarena are not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A user's gymnasium.Wrapper subclass, served with rlf env python. */
const WRAPPER = join(ROOT, "services/environments/src/fixtures/lake_wrapper.py");
const FROZEN_LAKE = ["--id", "FrozenLake-v1", "--kwargs", '{"is_slippery": false}'];
/** The shortest safe walk from S to G on the 4x4 map (2 right, 1 down). */
const PATH = [2, 2, 1, 1, 1, 2];

describe.skipIf(!haveGym())("rlf env gym and rlf env textarena behind the gateway", () => {
  let gw: InProcessGateway;
  const text = (r: { content: unknown }) =>
    (r.content as { text?: { text: string } }[]).map((c) => c.text?.text ?? "").join("");
  const structured = (r: { structured_content_json: string }) =>
    JSON.parse(r.structured_content_json || "null") as Record<string, unknown>;

  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        lake: {
          command: process.execPath,
          args: [RLF, "env", "gym", ...FROZEN_LAKE, "--workers", "1", "--stdio"],
        },
        wrapped: {
          command: process.execPath,
          args: [
            ...[RLF, "env", "python", "--module", WRAPPER, "--class", "Lake", "--name", "wrapped"],
            ...["--venv", BFCL_VENV, "--workers", "1", "--stdio"],
          ],
        },
        guess: {
          command: process.execPath,
          args: [RLF, "env", "textarena", "--id", "GuessTheNumber-v0", "--workers", "1", "--stdio"],
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it("offers only reset, step and render, step's action an integer 0..3 with FrozenLake's meanings", async () => {
    const tools = (await gw.client.listTools()).filter((t) => t.name.startsWith("lake__"));
    expect(tools.map((t) => t.name).sort()).toEqual(["lake__render", "lake__reset", "lake__step"]);
    const step = tools.find((t) => t.name === "lake__step")!;
    const schema = JSON.parse(step.input_schema_json) as { properties: { action: Record<string, unknown> } };
    expect(schema.properties.action).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: 3,
      description: "0: left, 1: down, 2: right, 3: up",
    });
    const set = await gw.client.callTool({
      name: "lake__set_wrapper_attr",
      arguments_json: JSON.stringify({ name: "s", value: 14 }),
      episode_id: await gw.client.startEpisode("lake", {}),
    });
    expect(set.error_code).toBe("UNKNOWN_TOOL");
  });

  it("walks to the goal: plain-text grids, reward 1 in the structured content and the state; a fork is independent", async () => {
    const id = await gw.client.startEpisode("lake", { seed: 0 });
    const step = (episode: string, action: unknown) =>
      gw.client.callTool({
        name: "lake__step",
        arguments_json: JSON.stringify({ action }),
        episode_id: episode,
      });
    const first = await gw.client.callTool({ name: "lake__render", arguments_json: "{}", episode_id: id });
    expect(text(first)).toBe("[S]FFF\nFHFH\nFFFH\nHFFG\nobservation: 0");
    for (const action of PATH.slice(0, 5)) expect((await step(id, action)).error_code).toBe("OK");
    const [fork] = await gw.client.forkEpisode(id, 1);
    const last = await step(id, 2);
    expect(text(last)).toBe(
      "  (Right)\nSFFF\nFHFH\nFFFH\nHFF[G]\nobservation: 15\nreward 1, episode reward 1, episode over (terminated)",
    );
    expect(structured(last)).toMatchObject({ reward: 1, terminated: true, done: true, steps: 6 });
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({ reward: 1, done: true, observation: 15 });
    // the fork, one step from the goal, walks up instead: no reward, the original untouched
    const up = await step(fork!, 3);
    expect(structured(up)).toMatchObject({ reward: 0, done: false, observation: 10, steps: 6 });
    expect(await gw.client.endEpisode(fork!)).toMatchObject({ reward: 0, observation: 10 });
    const over = await step(id, 2);
    expect([over.is_error, text(over)]).toEqual([true, expect.stringMatching(/episode is over/)]);
    expect(await gw.client.endEpisode(id)).toMatchObject({ reward: 1, steps: 6 });
    // a move outside the action space is refused by its schema, not a state change
    const other = await gw.client.startEpisode("lake", {});
    expect((await step(other, 4)).error_code).toBe("INVALID_ARGUMENTS");
    expect(await gw.client.endEpisode(other)).toMatchObject({ steps: 0 });
  });

  it("rlf env python on a gymnasium.Wrapper subclass: only its own methods, no setter; a str result is the text", async () => {
    const tools = (await gw.client.listTools()).filter((t) => t.name.startsWith("wrapped__"));
    expect(tools.map((t) => t.name).sort()).toEqual(["wrapped__move", "wrapped__where"]);
    const id = await gw.client.startEpisode("wrapped", {});
    const set = await gw.client.callTool({
      name: "wrapped__set_wrapper_attr",
      arguments_json: JSON.stringify({ name: "s", value: 14 }),
      episode_id: id,
    });
    expect(set.error_code).toBe("UNKNOWN_TOOL");
    const move = await gw.client.callTool({
      name: "wrapped__move",
      arguments_json: JSON.stringify({ action: 2 }),
      episode_id: id,
    });
    expect(text(move)).toBe("at 1, reward 0");
    const where = await gw.client.callTool({ name: "wrapped__where", arguments_json: "{}", episode_id: id });
    expect(text(where)).toBe("[0,1]");
    await gw.client.endEpisode(id);
  });

  it("plays GuessTheNumber by bisection: plain-text observations, reward 1 when it is found", async () => {
    const id = await gw.client.startEpisode("guess", { seed: 3 });
    // a fork made before the first guess plays on its own: its guess is not in the original's history
    const [fork] = await gw.client.forkEpisode(id, 1);
    const forked = await gw.client.callTool({
      name: "guess__step",
      arguments_json: JSON.stringify({ action: "[20]" }),
      episode_id: fork!,
    });
    expect(text(forked)).toContain("[Player] [20]");
    expect(await gw.client.endEpisode(fork!)).toMatchObject({ steps: 1, done: false });
    const tools = (await gw.client.listTools()).filter((t) => t.name.startsWith("guess__"));
    expect(tools.map((t) => t.name).sort()).toEqual(["guess__reset", "guess__step"]);
    let [low, high] = [1, 20];
    let result: Awaited<ReturnType<typeof gw.client.callTool>> | undefined;
    for (let turn = 0; turn < 10; turn++) {
      const guess = Math.floor((low + high) / 2);
      result = await gw.client.callTool({
        name: "guess__step",
        arguments_json: JSON.stringify({ action: `[${guess}]` }),
        episode_id: id,
      });
      expect(result.error_code).toBe("OK");
      const said = text(result);
      expect(said.startsWith('"')).toBe(false);
      if (structured(result).done) break;
      expect(said).toContain(`[Player] [${guess}]`);
      expect(said).not.toContain("[Player] [20]");
      if (/lower\.$/.test(said)) high = guess - 1;
      else low = guess + 1;
    }
    expect(structured(result!)).toMatchObject({ done: true, reward: 1 });
    expect(await gw.client.snapshotEpisode(id)).toMatchObject({ reward: 1, done: true, players: 1 });
    expect(text(result!)).toMatch(
      /^\[GAME\] Congratulations! You guessed the correct number\.\n\[GAME OVER\]/,
    );
    expect(await gw.client.endEpisode(id)).toMatchObject({ reward: 1, done: true });
  });
});
