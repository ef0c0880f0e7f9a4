// The format component on real trajectory records: 1 only for answer + no malformed turn + completed.

import { ok, rewardInput, trajectoryWith } from "@rlfactory/test-support/reward-fixtures";
import { describe, expect, it } from "vitest";
import { createFormat } from "./format.ts";

const ctx = { tools: { call: () => Promise.reject(new Error("format calls no tool")) } };
const format = createFormat({ type: "format", weight: 0.1 });

describe("format", () => {
  it("is 1 for a completed rollout that answered with every turn well-formed", async () => {
    const trajectory = trajectoryWith([
      { kind: "sampled", calls: [ok()] },
      { kind: "observation" },
      { kind: "sampled" },
    ]);
    expect(await format.score(rewardInput({ trajectory }), ctx)).toEqual({ value: 1 });
    expect(format.weight).toBe(0.1);
  });

  it.each([
    [{ answer: null }, "no answer"],
    [{ malformedTurns: 2 }, "2 malformed turn(s)"],
    [{ trajectory: trajectoryWith([{ kind: "sampled" }], "truncated") }, "status truncated"],
    [{ trajectory: trajectoryWith([{ kind: "sampled" }], "aborted") }, "status aborted"],
    [{ answer: null, malformedTurns: 1 }, "no answer; 1 malformed turn(s)"],
  ] as const)("is 0 when %#: %s", async (overrides, detail) => {
    expect(await format.score(rewardInput(overrides), ctx)).toEqual({ value: 0, detail });
  });
});
