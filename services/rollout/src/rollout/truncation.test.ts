// Every `truncated` reason, at its boundary: the budget is reached when prompt + response + the next
// tokens would be AT it (the context never holds `max_context_tokens` tokens).
import { describe, expect, it } from "vitest";
import type { LoopLimits } from "./loop-deps.ts";
import { cutWhileGenerating, maxTurnsReached, overContextBudget, promptTooLong } from "./truncation.ts";

const limits: LoopLimits = {
  maxTurns: 3,
  maxContextTokens: 100,
  maxToolResponseTokens: 10,
  toolDeadlineMs: 1000,
  onNoAction: "end",
};
const truncated = (reason: string) => ({ kind: "end", status: "truncated", reason });

describe("truncation", () => {
  it("a prompt of the budget's length or more does not fit", () => {
    expect(promptTooLong(99, limits)).toBeUndefined();
    expect(promptTooLong(100, limits)).toEqual(truncated("prompt is 100 tokens, the context budget is 100"));
  });

  it("a turn is cut by the budget only when it stopped at `length` under a cap lower than max_tokens, without an answer", () => {
    const reason = truncated("context budget of 100 tokens reached while generating");
    expect(cutWhileGenerating({ finishReason: "length", maxTokens: 20 }, undefined, 64, limits)).toEqual(
      reason,
    );
    expect(
      cutWhileGenerating({ finishReason: "length", maxTokens: 64 }, undefined, 64, limits),
    ).toBeUndefined();
    expect(
      cutWhileGenerating({ finishReason: "stop", maxTokens: 20 }, undefined, 64, limits),
    ).toBeUndefined();
    expect(
      cutWhileGenerating({ finishReason: "length", maxTokens: 20 }, "Paris", 64, limits),
    ).toBeUndefined();
  });

  it("the turn of index max_turns - 1 is the last", () => {
    expect([0, 1].map((turn) => maxTurnsReached(turn, limits))).toEqual([undefined, undefined]);
    expect(maxTurnsReached(2, limits)).toEqual(truncated("max_turns (3) reached"));
  });

  it("appended tokens must leave the context under the budget", () => {
    expect(overContextBudget(90, 9, limits, "the observation needs")).toBeUndefined();
    expect(overContextBudget(90, 10, limits, "user turn 2 needs")).toEqual(
      truncated("context budget of 100 tokens reached: user turn 2 needs 10 more"),
    );
  });
});
