import { describe, expect, it } from "vitest";
import { compileFormula } from "./formula.ts";

describe("compileFormula", () => {
  it.each([
    ["0.5 * a + 0.5 * b", { a: 1, b: 0.4 }, 0.7],
    ["a + b * c", { a: 0.1, b: 0.5, c: 0.5 }, 0.35],
    ["(a + b) / 2", { a: 1, b: 0 }, 0.5],
    ["1 - a", { a: 0.25 }, 0.75],
    ["-a + 1", { a: 0.25 }, 0.75],
    ["max(a, b, 0.2)", { a: 0.1, b: 0.15 }, 0.2],
    ["min(a, b)", { a: 0.1, b: 0.15 }, 0.1],
    ["sqrt(a) * abs(-b)", { a: 0.25, b: 1 }, 0.5],
    ["2 * a - b", { a: 0.5, b: 0.25 }, 0.75],
  ])("%s with %o → %d", (source, values, expected) => {
    expect(compileFormula(source, Object.keys(values)).evaluate(values)).toBeCloseTo(expected, 12);
  });

  it("reports the names it reads", () => {
    expect([...compileFormula("a * 2", ["a", "b"]).names]).toEqual(["a"]);
  });

  it.each([
    ["a + c", /unknown name "c"/],
    ["a ? 1 : 0", /not allowed/],
    ["a == b", /operator "==" is not allowed/],
    ["a || b", /operator "\|\|" is not allowed/],
    ["!a", /operator "!" is not allowed/],
    ["a.constructor", /MemberExpression is not allowed/],
    ["'x'", /only numbers/],
    ["this", /not allowed/],
    ["process(a)", /only these functions/],
    ["abs(a, b)", /abs takes one argument/],
    ["max()", /max takes one or more/],
    ["a; b", /not allowed/],
    ["[a, b]", /not allowed/],
    ["a +", /calculate_output/],
    ["a % b", /operator "%" is not allowed/],
  ])("rejects %s as INVALID_GRADER", (source, message) => {
    expect(() => compileFormula(source, ["a", "b"])).toThrow(
      expect.objectContaining({ code: "INVALID_GRADER", message: expect.stringMatching(message) }),
    );
  });

  it("rejects a non-finite result (division by zero) when evaluated", () => {
    const formula = compileFormula("a / b", ["a", "b"]);
    expect(formula.evaluate({ a: 1, b: 2 })).toBe(0.5);
    expect(() => formula.evaluate({ a: 1, b: 0 })).toThrow(
      expect.objectContaining({ code: "INVALID_GRADER" }),
    );
  });
});
