import { describe, expect, it } from "vitest";
import { isGatewayError } from "./errors.ts";
import { TrajectoryBudgets } from "./trajectory-budget.ts";

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (isGatewayError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  return "not refused";
}

describe("per-trajectory budgets", () => {
  it("counts calls per trajectory and refuses the one past the limit with BUDGET_EXCEEDED", () => {
    const budgets = new TrajectoryBudgets("writer", { calls: 2, tokens: undefined });
    budgets.reserve("t1", "summarise").commit(10);
    budgets.reserve("t1", "summarise").commit(10);
    expect(refusal(() => budgets.reserve("t1", "summarise"))).toMatch(
      /^BUDGET_EXCEEDED: writer__summarise: .*its 2 calls.*trajectory_budget\.calls/,
    );
    // another trajectory has its own budget
    expect(() => budgets.reserve("t2", "summarise")).not.toThrow();
    expect(budgets.spent("t1")).toEqual({ calls: 2, tokens: 20 });
  });

  it("refuses once the tokens spent reach the limit (the crossing call is allowed)", () => {
    const budgets = new TrajectoryBudgets("writer", { calls: undefined, tokens: 100 });
    budgets.reserve("t1", "a").commit(60);
    budgets.reserve("t1", "b").commit(60); // 120: over, found out only after the answer
    expect(refusal(() => budgets.reserve("t1", "a"))).toMatch(/^BUDGET_EXCEEDED: .*120 of its 100 tokens/);
    expect(budgets.spent("t1")).toEqual({ calls: 2, tokens: 120 });
  });

  it("a call released (no answer) does not count, and settles only once", () => {
    const budgets = new TrajectoryBudgets("writer", { calls: 1, tokens: undefined });
    const failed = budgets.reserve("t1", "a");
    failed.release();
    failed.release();
    failed.commit(5);
    expect(budgets.spent("t1")).toEqual({ calls: 0, tokens: 0 });
    budgets.reserve("t1", "a").commit(5);
    expect(refusal(() => budgets.reserve("t1", "a"))).toMatch(/^BUDGET_EXCEEDED/);
  });

  it("concurrent calls of one trajectory cannot all slip under the call limit", () => {
    const budgets = new TrajectoryBudgets("writer", { calls: 3, tokens: undefined });
    const outcomes = Array.from({ length: 5 }, () => refusal(() => budgets.reserve("t1", "a")));
    expect(outcomes.filter((o) => o === "not refused")).toHaveLength(3);
    expect(outcomes.filter((o) => o.startsWith("BUDGET_EXCEEDED"))).toHaveLength(2);
  });

  it("counts nothing for a call without a trajectory id, or without limits", () => {
    const limited = new TrajectoryBudgets("writer", { calls: 1, tokens: 1 });
    for (let i = 0; i < 3; i++) limited.reserve(undefined, "a").commit(50);
    const unlimited = new TrajectoryBudgets("writer", { calls: undefined, tokens: undefined });
    for (let i = 0; i < 3; i++) unlimited.reserve("t1", "a").commit(50);
    expect([limited.spent(""), unlimited.spent("t1")]).toEqual([
      { calls: 0, tokens: 0 },
      { calls: 0, tokens: 0 },
    ]);
  });
});
