// `bfcl_response` (BFCL's response checker) on known trajectories, with a small in-memory environment
// behind a test double of the gateway: the ground truth's results found among the model's results of
// user turns 0..k (unordered, each used once), an empty turn failing, a turn without ground truth not
// checked, one replay shared with bfcl_state, and an infrastructure failure a reward_error.

import type { Task, Trajectory } from "@rlfactory/contracts";
import { trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { missingUnordered } from "./bfcl-response.ts";
import { createRewardFn } from "./reward-config.ts";
import type { RewardContext, RewardInput } from "./types.ts";

/** A list environment: `push {item}` → `{"size": n}`, `size {}` → `{"size": n}`, `boom {}` fails. */
function environment(log: string[] = []): RewardContext {
  const episodes = new Map<string, string[]>();
  let next = 0;
  return {
    episodes: {
      start: async (server, config) => {
        log.push(`start ${server}`);
        const id = `ep${next++}`;
        episodes.set(id, [...((config as { items?: string[] }).items ?? [])]);
        return id;
      },
      fork: async () => [],
      snapshot: async (id) => ({ items: [...episodes.get(id)!] }),
      end: async (id) => ({ items: episodes.get(id)! }),
    },
    tools: {
      call: async (name, args, { episodeId }) => {
        const items = episodes.get(episodeId ?? "")!;
        if (name === "env__push") items.push(String(args.item));
        if (name === "env__boom")
          return { isError: true, errorCode: "OK", text: "boom failed", structured: null };
        if (name === "env__strict" && typeof args.n !== "number")
          return {
            isError: false,
            errorCode: "INVALID_ARGUMENTS",
            text: "env__strict: n must be a number",
            structured: null,
          };
        if (name === "env__nowhere")
          return {
            isError: false,
            errorCode: "UNKNOWN_TOOL",
            text: "no tool env__nowhere",
            structured: null,
          };
        return {
          isError: false,
          errorCode: "OK",
          text: JSON.stringify({ size: items.length }),
          structured: null,
        };
      },
    },
  };
}

const push = (item: string) => ({ name: "push", arguments: { item } });
const size = { name: "size", arguments: {} };

/** Two user turns: push a, b; then size. */
function task(truth: { name: string; arguments: Record<string, unknown> }[][]): Task {
  return {
    id: "t",
    data_source: "test",
    prompt: [{ role: "user", content: "go" }],
    ground_truth: truth[0]!,
    extra_info: {},
    turns: truth.slice(1).map((ground_truth) => ({ content: "more", ground_truth })),
    environment: { server: "env", config: {} },
    tool_aliases: { push: "env__push", size: "env__size", boom: "env__boom", strict: "env__strict" },
  };
}

type Call = { name: string; result: string; error_code?: string };
/** A trajectory whose user turn k made `calls[k]` (one sampled turn each, then its answer), with per-turn states. */
function trajectory(calls: Call[][], states: string[][]): Trajectory {
  const spec: Parameters<typeof trajectoryWith>[0] = [];
  const userTurns: { index: number; turn: number | null }[] = [];
  calls.forEach((turnCalls, k) => {
    if (k > 0) {
      userTurns.push({ index: k, turn: spec.length });
      spec.push({ kind: "observation" });
    } else userTurns.push({ index: 0, turn: null });
    for (const c of turnCalls) {
      spec.push({
        kind: "sampled",
        calls: [
          {
            name: c.name,
            result: c.result,
            error_code: c.error_code ?? null,
            is_error: c.error_code !== undefined,
          },
        ],
      });
      spec.push({ kind: "observation" });
    }
    spec.push({ kind: "sampled" });
  });
  const t = trajectoryWith(spec);
  const snapshots = states.map((items, k) => ({
    user_turn: k,
    ...(k === states.length - 1 ? { final: true } : {}),
    state: { items },
  }));
  return { ...t, metadata: { user_turns: userTurns, environment: { server: "env", snapshots } } };
}

const sized = (n: number) => JSON.stringify({ size: n });
const input = (t: Task, trajectory: Trajectory): RewardInput => ({
  task: t,
  trajectory,
  sampledTexts: [],
  answer: null,
  malformedTurns: 0,
});
const score = (t: Task, tr: Trajectory, ctx = environment()) =>
  createRewardFn([{ type: "bfcl_state" }, { type: "bfcl_response" }]).score(input(t, tr), ctx);

describe("bfcl_response", () => {
  const truth = task([[push("a"), push("b")], [size]]);

  it("the model replaying the ground truth exactly: 1, with bfcl_state 1, from one replay", async () => {
    const log: string[] = [];
    const exact = trajectory(
      [
        [
          { name: "push", result: sized(1) },
          { name: "push", result: sized(2) },
        ],
        [{ name: "size", result: sized(2) }],
      ],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    const result = await score(truth, exact, environment(log));
    expect([result.components, result.error]).toEqual([{ bfcl_state: 1, bfcl_response: 1 }, null]);
    expect(log).toEqual(["start env"]);
  });

  it("results in any order, and found in an earlier user turn: still 1", async () => {
    const early = trajectory(
      [
        [
          { name: "size", result: sized(0) },
          { name: "push", result: sized(1) },
          { name: "push", result: sized(2) },
          { name: "size", result: sized(2) },
        ],
        [{ name: "size", result: sized(2) }],
      ],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    expect((await score(truth, early)).components).toEqual({ bfcl_state: 1, bfcl_response: 1 });
    // turn 1's ground-truth result {size: 2} was already among turn 0's results; the turn still needs a call
    const reordered = trajectory(
      [
        [
          { name: "push", result: sized(2) },
          { name: "push", result: sized(1) },
        ],
        [{ name: "boom", result: "boom failed", error_code: "TOOL_ERROR" }],
      ],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    expect((await score(truth, reordered)).components).toEqual({ bfcl_state: 1, bfcl_response: 1 });
  });

  it("a ground-truth result missing, or used twice: 0", async () => {
    const once = trajectory(
      [[{ name: "push", result: sized(2) }], [{ name: "size", result: sized(2) }]],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    const result = await score(truth, once);
    expect(result.components).toEqual({ bfcl_state: 1, bfcl_response: 0 });
    expect(result.details.bfcl_response).toMatch(/^1 of 2 user turns .*user turn 0: 1 ground-truth result/);
  });

  it("no call in a user turn with ground truth: 0 (BFCL's empty turn), even with its results found earlier", async () => {
    const silent = trajectory(
      [
        [
          { name: "push", result: sized(1) },
          { name: "push", result: sized(2) },
        ],
        [],
      ],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    const result = await score(truth, silent);
    expect(result.components).toEqual({ bfcl_state: 1, bfcl_response: 0 });
    expect(result.details.bfcl_response).toContain("no call in user turn 1");
  });

  it("a user turn without ground truth is not checked (state or response); one not reached fails", async () => {
    const withEmpty = task([[push("a")], [], [size]]);
    const acted = trajectory(
      [
        [{ name: "push", result: sized(1) }],
        [{ name: "size", result: sized(1) }],
        [{ name: "size", result: sized(1) }],
      ],
      [["a"], ["a"], ["a"]],
    );
    expect((await score(withEmpty, acted)).components).toEqual({ bfcl_state: 1, bfcl_response: 1 });
    const cut = trajectory([[{ name: "push", result: sized(1) }], []], [["a"], ["a"]]);
    expect((await score(withEmpty, cut)).components).toEqual({ bfcl_state: 0, bfcl_response: 0 });
  });

  it("a model call the infrastructure failed: reward null with a reward_error, never 0", async () => {
    const timedOut = trajectory(
      [
        [
          { name: "push", result: "deadline exceeded", error_code: "TIMEOUT" },
          { name: "push", result: sized(2) },
        ],
        [{ name: "size", result: sized(2) }],
      ],
      [
        ["a", "b"],
        ["a", "b"],
      ],
    );
    const result = await createRewardFn([{ type: "bfcl_response" }]).score(
      input(truth, timedOut),
      environment(),
    );
    expect(result.reward).toBeNull();
    expect(result.error).toMatchObject({ component: "bfcl_response", code: "TIMEOUT" });
  });

  it("a ground-truth call the gateway refuses for its arguments: the refusal is its result (the model's same call matches); an unknown tool is a reward_error", async () => {
    const refused = task([[push("a"), { name: "strict", arguments: { n: "1" } }]]);
    const same = trajectory(
      [
        [
          { name: "push", result: sized(1) },
          { name: "strict", result: "env__strict: n must be a number", error_code: "INVALID_ARGUMENTS" },
        ],
      ],
      [["a"]],
    );
    expect((await score(refused, same)).components).toEqual({ bfcl_state: 1, bfcl_response: 1 });
    const other = trajectory(
      [
        [
          { name: "push", result: sized(1) },
          { name: "strict", result: sized(1) },
        ],
      ],
      [["a"]],
    );
    expect((await score(refused, other)).components).toEqual({ bfcl_state: 1, bfcl_response: 0 });
    const unknown = task([[push("a"), { name: "env__nowhere", arguments: {} }]]);
    const result = await score(unknown, same);
    expect([result.reward, result.error]).toMatchObject([null, { code: "UNKNOWN_TOOL" }]);
  });

  it("multiset inclusion, as BFCL's _is_subsequence_unordered", () => {
    expect(missingUnordered(["x", "y", "x"], ["y", "x", "z", "x"])).toEqual([]);
    expect(missingUnordered(["x", "x"], ["x", "y"])).toEqual(["x"]);
    expect(missingUnordered([], [])).toEqual([]);
  });
});
