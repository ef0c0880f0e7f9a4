// tool_call_penalty in both modes, on real trajectory records with N tool calls.

import { failed, ok, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { rewardComponentSchema } from "./reward-config.ts";
import { createToolPenalty, type ToolPenaltyConfig } from "./tool-penalty.ts";

const ctx = { tools: { call: () => Promise.reject(new Error("the penalty calls no tool")) } };

/** A trajectory with `n` calls spread over sampled turns (two per turn), one of them failed. */
function withCalls(n: number) {
  const calls = Array.from({ length: n }, (_, i) => (i === 0 ? failed("TIMEOUT") : ok()));
  const turns = [];
  for (let i = 0; i < n; i += 2)
    turns.push({ kind: "sampled" as const, calls: calls.slice(i, i + 2) }, { kind: "observation" as const });
  turns.push({ kind: "sampled" as const });
  return trajectoryWith(turns);
}

async function value(config: Partial<ToolPenaltyConfig>, calls: number): Promise<number> {
  const parsed = rewardComponentSchema.parse({ type: "tool_call_penalty", ...config }) as ToolPenaltyConfig;
  return (await createToolPenalty(parsed).score(rewardInput({ trajectory: withCalls(calls) }), ctx)).value;
}

describe("tool_call_penalty", () => {
  it("defaults to RL-Factory's rule: −0.1 once past 2 calls (failed calls count)", async () => {
    expect([await value({}, 0), await value({}, 2), await value({}, 3), await value({}, 6)]).toEqual([
      0, 0, -0.1, -0.1,
    ]);
  });

  it("per_call mode charges each call past max_calls", async () => {
    const c = { mode: "per_call", max_calls: 1, penalty: 0.05 } as const;
    expect(await value(c, 1)).toBe(0);
    expect(await value(c, 2)).toBeCloseTo(-0.05, 12);
    expect(await value(c, 5)).toBeCloseTo(-0.2, 12);
  });

  it("max_calls 0 penalises any call; penalty 0 gives 0", async () => {
    expect(await value({ max_calls: 0, penalty: 1 }, 1)).toBe(-1);
    expect(Object.is(await value({ max_calls: 0, penalty: 0 }, 3), 0)).toBe(true);
  });

  it("rejects a negative penalty and an unknown mode", () => {
    expect(rewardComponentSchema.safeParse({ type: "tool_call_penalty", penalty: -0.1 }).success).toBe(false);
    expect(rewardComponentSchema.safeParse({ type: "tool_call_penalty", mode: "each" }).success).toBe(false);
  });
});
