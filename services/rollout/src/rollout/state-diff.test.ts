// Snapshots over the bound stored as diffs against the episode's initial state: a ~2 MB database that
// changes one row stores that row (a few hundred bytes, not a truncated marker), and the full state is
// rebuilt exactly from the initial state and the diff.
import { describe, expect, it } from "vitest";
import { boundedSnapshot, type EpisodeApi, groupEpisodes } from "./episodes.ts";
import { applyStateDiff, type StateDiff, stateDiff, stateDigest } from "./state-diff.ts";

/** A τ-bench-like database of about 2 MB: orders keyed by id, each a row of a few fields. */
function database(): { orders: Record<string, unknown>; users: Record<string, unknown> } {
  const orders: Record<string, unknown> = {};
  for (let i = 0; i < 12_000; i++)
    orders[`#W${1_000_000 + i}`] = {
      user_id: `user_${i % 500}`,
      items: [{ item_id: String(9_000_000_000 - i), price: 100.5 + (i % 7), options: { color: "red" } }],
      status: "pending",
      address: { city: "Springfield", zip: String(10_000 + (i % 900)) },
    };
  return { orders, users: { user_1: { name: "Ann" } } };
}

describe("environment snapshots stored as diffs", () => {
  it("stores a 2 MB database that changed one row as that row, and rebuilds the full state from it", () => {
    const initial = database();
    const state = structuredClone(initial);
    (state.orders["#W1000042"] as { status: string }).status = "cancelled";
    const full = Buffer.byteLength(JSON.stringify(state));
    expect(full).toBeGreaterThan(2_000_000);

    // without the initial state: over the bound, a truncated marker, as before
    expect(boundedSnapshot(1, state, 262_144, true)).toEqual({
      user_turn: 1,
      final: true,
      truncated: true,
      bytes: full,
    });
    const stored = boundedSnapshot(1, state, 262_144, true, { state: initial });
    expect("truncated" in stored).toBe(false);
    expect(stored).toMatchObject({
      user_turn: 1,
      final: true,
      diff: [{ op: "replace", path: "/orders/#W1000042/status", value: "cancelled" }],
      base: { digest: stateDigest(initial), bytes: Buffer.byteLength(JSON.stringify(initial)) },
      bytes: full,
    });
    // what the trajectory record holds for it: the one row's change
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThan(400);

    const rebuilt = applyStateDiff(initial, (stored as { diff: StateDiff }).diff);
    expect(rebuilt).toEqual(state);
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(state));
    // the initial state is left as it was (a group's samples share it)
    expect((initial.orders["#W1000042"] as { status: string }).status).toBe("pending");
  });

  it("keeps a state within the bound whole, and rebuilds added, removed and replaced values", () => {
    expect(boundedSnapshot(0, { a: 1 }, 100, false, { state: {} })).toEqual({
      user_turn: 0,
      state: { a: 1 },
    });
    const initial = { list: [1, 2, 3], gone: { x: 1 }, keep: "k" };
    const state = { list: [1, 3, 4, 5], added: { "9690244451": 1, "1151293680": 2 }, keep: "k" };
    expect(applyStateDiff(initial, stateDiff(initial, state))).toEqual(state);
    // a state that is not an object is replaced whole
    expect(applyStateDiff({ a: 1 }, stateDiff({ a: 1 }, "text"))).toBe("text");
  });

  it("the digest names the state whatever its key order", () => {
    expect(stateDigest({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(stateDigest({ a: [1, { c: 3, d: 2 }], b: 1 }));
    expect(stateDigest({ a: 1 })).not.toBe(stateDigest({ a: 2 }));
  });

  it("a group's initial state is what its parent episode ended with, after the fork", async () => {
    const calls: string[] = [];
    const api: EpisodeApi = {
      start: async () => {
        calls.push("start");
        return "p";
      },
      fork: async (_id, n) => {
        calls.push(`fork ${n}`);
        return Array.from({ length: n }, (_, i) => `p.${i}`);
      },
      snapshot: async () => ({}),
      end: async (id) => {
        calls.push(`end ${id}`);
        return { db: { row: 1 } };
      },
    };
    const group = groupEpisodes(api, { server: "ftrl", config: { task: "t" } }, 2);
    expect(await Promise.all([group(0), group(1)])).toEqual(["p.0", "p.1"]);
    expect(await group.initial()).toEqual({ state: { db: { row: 1 } } });
    expect(calls).toEqual(["start", "fork 2", "end p"]);
    // a parent that cannot be ended: no initial state (snapshots over the bound are then truncated)
    const noEnd = groupEpisodes(
      { ...api, end: async () => Promise.reject(new Error("gone")) },
      { server: "s", config: {} },
      1,
    );
    expect([await noEnd(0), await noEnd.initial()]).toEqual(["p.0", undefined]);
  });
});
