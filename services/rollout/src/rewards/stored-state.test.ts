// Rewards on snapshots stored as diffs: the state is rebuilt from the environment's initial state (a
// fresh episode of the task's environment, once per environment and scoring) plus the diff, and a diff
// whose base is not the state the environment starts in is a reward error, never a score.
import { qaTask, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import type { EpisodeApi } from "../rollout/episodes.ts";
import { boundedSnapshot } from "../rollout/episodes.ts";
import { createRewardFn } from "./reward-config.ts";

const INITIAL = {
  users: { ann: { balance: 500.5 } },
  rows: Array.from({ length: 50 }, (_, i) => `row ${i}`),
};
const FINAL = { ...INITIAL, users: { ann: { balance: 302.5 } } };
const task = { ...qaTask([]), environment: { server: "db", config: { task: "t1" } } };
const tools = { call: async () => ({ isError: false, errorCode: "OK", text: "", structured: null }) };

/** Episodes whose fresh episode starts in `initial`; `calls` records each RPC. */
function episodesStartingIn(initial: unknown, calls: string[]): EpisodeApi {
  return {
    start: async (server) => {
      calls.push(`start ${server}`);
      return "fresh";
    },
    fork: async () => [],
    snapshot: async () => initial,
    end: async (id) => {
      calls.push(`end ${id}`);
      return initial;
    },
  };
}

const stored = (state: unknown, initial: unknown) => ({
  ...trajectoryWith([{ kind: "sampled" }]),
  metadata: {
    environment: { server: "db", snapshots: [boundedSnapshot(0, state, 200, true, { state: initial })] },
  },
});

describe("rewards on snapshots stored as diffs", () => {
  it("state_match reads the state rebuilt from the environment's initial state and the diff", async () => {
    const trajectory = stored(FINAL, INITIAL);
    expect(trajectory.metadata.environment.snapshots[0]).toHaveProperty("diff");
    const fn = createRewardFn([
      {
        type: "state_match",
        checks: [
          { path: "$.users.ann.balance", equals: 302.5 },
          { path: "$.rows[49]", equals: "row 49" },
        ],
      },
    ]);
    const calls: string[] = [];
    const ctx = { tools, episodes: episodesStartingIn(INITIAL, calls) };
    const first = await fn.score(rewardInput({ task, trajectory }), ctx);
    const second = await fn.score(rewardInput({ task, trajectory: stored(INITIAL, FINAL) }), ctx);
    expect([first.reward, first.error]).toEqual([1, null]);
    // another trajectory of the same environment (its diff made against another base): the initial
    // state is fetched once per scoring
    expect(second.error?.code).toBe("SNAPSHOT_BASE_MISMATCH");
    expect(calls).toEqual(["start db", "end fresh"]);
  });

  it("a diff whose base is not the environment's initial state is SNAPSHOT_BASE_MISMATCH; no episode API, NO_EPISODE_API", async () => {
    const fn = createRewardFn([{ type: "state_match", checks: [{ path: "$.users", contains: {} }] }]);
    const elsewhere = { ...INITIAL, rows: [] };
    const moved = await fn.score(rewardInput({ task, trajectory: stored(FINAL, INITIAL) }), {
      tools,
      episodes: episodesStartingIn(elsewhere, []),
    });
    expect([moved.reward, moved.error?.code, moved.error?.message]).toEqual([
      null,
      "SNAPSHOT_BASE_MISMATCH",
      expect.stringMatching(
        /is a diff against the initial state sha256:\w+, but the environment now starts in/,
      ),
    ]);
    const none = await fn.score(rewardInput({ task, trajectory: stored(FINAL, INITIAL) }), { tools });
    expect([none.reward, none.error?.code]).toEqual([null, "NO_EPISODE_API"]);
  });
});
