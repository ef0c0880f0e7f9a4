// `rlf env bfcl --stdio` behind a real gateway as server `bfcl`: an episode started from a BFCL
// multi_turn_base entry runs its first turn's ground-truth calls as `bfcl__<function>` and ends in the
// state a PythonEnvironmentHost reaches by itself; a fork into 16 gives independent copies; 64
// concurrent GorillaFileSystem episodes each see only their own file; an episode past its ttl_ms is
// gone (EPISODE_NOT_FOUND); a killed server answers EPISODE_LOST.
import { readFileSync } from "node:fs";
import { bfclPackageDir, type PythonEnvironmentHost, startBfclHost } from "@rlfactory/environments";
import {
  type InProcessGateway,
  RLF,
  startTestGateway,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { childrenWithEnv } from "@rlfactory/test-support/process-tree";
import { haveSharedData, sharedDataPath } from "@rlfactory/test-support/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENTRIES = "bfcl/BFCL_v4_multi_turn_base.json";
const ANSWERS = "bfcl/possible_answer/BFCL_v4_multi_turn_base.json";
const ROLE = "RLF_TEST_BFCL_ROLE";

function haveVenv(): boolean {
  if (bfclPackageDir() !== undefined) return true;
  const message = "rlf env bfcl: bfcl-eval is not installed (run npm run setup:environments)";
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}

/** PIDs of this process's children started with `${ROLE}=role`. */
function childrenWithRole(role: string): number[] {
  return childrenWithEnv(`${ROLE}=${role}`);
}

interface Entry {
  id: string;
  involved_classes: string[];
  initial_config: Record<string, unknown>;
}

function firstLine<T>(relative: string, pick: (row: T) => boolean): T {
  for (const line of readFileSync(sharedDataPath(relative), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as T;
    if (pick(row)) return row;
  }
  throw new Error(`no matching row in ${relative}`);
}

const READY = haveVenv() && haveSharedData("rlf env bfcl", ENTRIES, ANSWERS);

describe.skipIf(!READY)("rlf env bfcl behind the gateway", () => {
  let gw: InProcessGateway;
  let host: PythonEnvironmentHost;
  let entry: Entry;
  let turn: string[];
  const server = (role: string) => ({
    command: process.execPath,
    args: [RLF, "env", "bfcl", "--workers", "1", "--stdio"],
    env: { [ROLE]: role },
    policy: { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 } },
  });

  beforeAll(async () => {
    entry = firstLine<Entry>(ENTRIES, (e) => e.involved_classes.includes("GorillaFileSystem"));
    const answer = firstLine<{ id: string; ground_truth: string[][] }>(ANSWERS, (a) => a.id === entry.id);
    turn = answer.ground_truth[0] ?? [];
    [gw, host] = await Promise.all([
      startTestGateway({ servers: { bfcl: server("main"), bfcl_crash: server("crash") } }),
      startBfclHost({ workers: 1 }),
    ]);
  }, 90_000);
  afterAll(async () => {
    await gw?.stop();
    await host?.stop();
  });

  const config = () => ({ involved_classes: entry.involved_classes, initial_config: entry.initial_config });

  it("runs a first turn's ground truth through the gateway to the host's own state; a fork of 16 is independent", async () => {
    expect(turn.length).toBeGreaterThan(0);
    const direct = await host.create(config());
    const id = await gw.client.startEpisode("bfcl", config());
    for (const text of turn) {
      const { tool, arguments: args } = await host.parseCall(text);
      const own = await host.call(direct, tool, args);
      const r = await gw.client.callTool({
        name: `bfcl__${tool}`,
        arguments_json: JSON.stringify(args),
        episode_id: id,
      });
      expect([text, r.error_code]).toEqual([text, own.ok ? "OK" : "TOOL_ERROR"]);
    }
    const state = await gw.client.snapshotEpisode(id);
    expect(state).toEqual(await host.snapshot(direct));

    const forks = await gw.client.forkEpisode(id, 16);
    expect(new Set(forks).size).toBe(16);
    await Promise.all(
      forks.map(async (f, i) => {
        const r = await gw.client.callTool({
          name: "bfcl__mkdir",
          arguments_json: JSON.stringify({ dir_name: `fork${i}` }),
          episode_id: f,
        });
        expect(r.error_code).toBe("OK");
      }),
    );
    const finals = await Promise.all(forks.map((f) => gw.client.endEpisode(f)));
    finals.forEach((final, i) => {
      const text = JSON.stringify(final);
      const mine = forks.map((_, j) => text.includes(`"fork${j}"`));
      expect(mine).toEqual(forks.map((_, j) => j === i));
    });
    expect(await gw.client.endEpisode(id)).toEqual(state);
    await host.close(direct);
  });

  it("64 concurrent GorillaFileSystem episodes, each writing its own file, never see another's", async () => {
    const fs = { involved_classes: ["GorillaFileSystem"], initial_config: entry.initial_config };
    const ids = await Promise.all(Array.from({ length: 64 }, () => gw.client.startEpisode("bfcl", fs)));
    expect(new Set(ids).size).toBe(64);
    const call = (id: string, tool: string, args: Record<string, unknown>) =>
      gw.client.callTool({ name: `bfcl__${tool}`, arguments_json: JSON.stringify(args), episode_id: id });
    // all 64 write at once, then all 64 list at once: each sees its own file and none of the others'
    const writes = await Promise.all(ids.map((id, i) => call(id, "touch", { file_name: `own_${i}.txt` })));
    expect(writes.map((w) => w.error_code)).toEqual(ids.map(() => "OK"));
    const listings = await Promise.all(ids.map((id) => call(id, "ls", {})));
    listings.forEach((listing, i) => {
      expect(listing.error_code).toBe("OK");
      const seen = [...JSON.stringify(listing.content).matchAll(/own_(\d+)\.txt/g)].map((m) => Number(m[1]));
      expect([i, seen]).toEqual([i, [i]]);
    });
    const finals = await Promise.all(ids.map((id) => gw.client.endEpisode(id)));
    finals.forEach((final, i) => {
      const seen = [...JSON.stringify(final).matchAll(/own_(\d+)\.txt/g)].map((m) => Number(m[1]));
      expect([i, [...new Set(seen)]]).toEqual([i, [i]]);
    });
  });

  it("ends an episode left idle past its ttl_ms: later calls answer EPISODE_NOT_FOUND", async () => {
    const id = await gw.client.startEpisode("bfcl", config(), 500);
    await waitFor(
      async () =>
        (await gw.client.callTool({ name: "bfcl__ls", arguments_json: "{}", episode_id: id })).error_code ===
        "EPISODE_NOT_FOUND",
      20_000,
      "the episode's ttl to expire",
    );
  });

  it("answers EPISODE_LOST once the server is killed", async () => {
    const id = await gw.client.startEpisode("bfcl_crash", config());
    const ls = await gw.client.callTool({ name: "bfcl_crash__ls", arguments_json: "{}", episode_id: id });
    expect(ls.error_code).toBe("OK");
    const [pid] = childrenWithRole("crash");
    expect(pid).toBeDefined();
    process.kill(pid!, "SIGKILL");
    await waitFor(
      () => gw.gateway.episodes.liveCounts().get("bfcl_crash") === 0,
      20_000,
      "the gateway to see the server go",
    );
    const lost = await gw.client.callTool({ name: "bfcl_crash__ls", arguments_json: "{}", episode_id: id });
    expect(lost.error_code).toBe("EPISODE_LOST");
  });
});
