import { describe, expect, it } from "vitest";
import { DISABLED_FUNCTIONS, EvaluationError, evaluateExpression, formatResult } from "./math-evaluator.ts";

const fails = (expression: string) => {
  try {
    evaluateExpression(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(EvaluationError);
    return (error as Error).message;
  }
  throw new Error(`${expression} evaluated`);
};

describe("evaluateExpression", () => {
  it("does arithmetic with precedence, powers and factorials", () => {
    expect(evaluateExpression("12 * (3 + 4)")).toBe(84);
    expect(evaluateExpression("2 + 3 * 4 ^ 2 / 8")).toBe(8);
    expect(evaluateExpression("5!")).toBe(120);
    expect(evaluateExpression("10 % 3")).toBe(1);
  });

  it("supports functions, constants, matrices and units", () => {
    expect(evaluateExpression("sqrt(16) + sin(pi / 2)")).toBe(5);
    expect(evaluateExpression("round(10 / 3, 2)")).toBe(3.33);
    expect(evaluateExpression("gcd(12, 18)")).toBe(6);
    expect(evaluateExpression("mean([1, 2, 3, 4])")).toBe(2.5);
    expect(evaluateExpression("det([1, 2; 3, 4])")).toBe(-2);
    expect(evaluateExpression("[1, 2; 3, 4] * [1; 1]")).toBe("[[3], [7]]");
    expect(evaluateExpression("2 inch to cm")).toBe("5.08 cm");
    expect(evaluateExpression("sqrt(-4)")).toBe("2i");
    expect(evaluateExpression("3 > 2")).toBe("true");
  });

  it("returns non-finite numbers as text", () => {
    expect(evaluateExpression("1 / 0")).toBe("Infinity");
    expect(evaluateExpression("0 / 0")).toBe("NaN");
  });

  it("reports expression errors in a short message", () => {
    expect(fails("x + 1")).toBe("Undefined symbol x");
    expect(fails("1 +")).toMatch(/^Unexpected end of expression/);
    expect(fails("sqrt()")).toMatch(/sqrt/);
  });

  it("blocks functions that reach the parser or change mathjs", () => {
    for (const name of DISABLED_FUNCTIONS) {
      expect(fails(`${name}("1")`)).toBe(`Function ${name} is not allowed`);
    }
    expect(fails('help("sin")')).toMatch(/not allowed/);
    expect(fails("cos.constructor")).toMatch(/No access to property "constructor"/);
  });

  it("allows a single formula only: no assignments, definitions or statement lists", () => {
    expect(fails("a = 2")).toBe("Assignments are not allowed");
    expect(fails("f(n) = n < 2 ? 1 : f(n - 1) + f(n - 2)")).toBe("Function definitions are not allowed");
    expect(fails("1; 2")).toBe("Only a single expression is allowed");
  });

  it("refuses functions and oversized matrices as results, and long expressions", () => {
    expect(fails("sin")).toBe("The result is a function, not a value");
    expect(fails("ones(100, 100)")).toBe("The result has 10000 elements; at most 1000 are allowed");
    expect(evaluateExpression("sum(1:2000)")).toBe(2001000);
    expect(fails(`1${"+1".repeat(500)}`)).toBe("The expression is longer than 1000 characters");
  });
});

describe("formatResult", () => {
  it("rounds floating-point noise for display", () => {
    expect(formatResult(evaluateExpression("0.1 + 0.2"))).toBe("0.3");
    expect(formatResult("[1, 2]")).toBe("[1, 2]");
  });
  it("writes numbers below 10^15 out in full, as a model would copy them", () => {
    expect(formatResult(evaluateExpression("27609 * 6104"))).toBe("168525336");
    expect(formatResult(evaluateExpression("712363 + 807306 + 113955"))).toBe("1633624");
    expect(formatResult(evaluateExpression("1234567.891"))).toBe("1234567.891");
    expect(formatResult(evaluateExpression("10^15"))).toBe("1e+15");
    expect(evaluateExpression("[100000, 2]")).toBe("[100000, 2]");
  });
});

describe("exact number modes", () => {
  it("fraction mode keeps rationals exact", () => {
    expect(evaluateExpression("1/3 + 1/6", "fraction")).toBe("1/2");
    expect(evaluateExpression("0.1 + 0.2", "fraction")).toBe("3/10");
    expect(evaluateExpression("0.1 + 0.2")).toBe(0.30000000000000004);
  });
  it("bignumber mode keeps 64 significant digits", () => {
    expect(evaluateExpression("2^100", "bignumber")).toBe("1.267650600228229401496703205376e+30");
    expect(evaluateExpression("0.1 + 0.2", "bignumber")).toBe("0.3");
    expect(evaluateExpression("1/3", "bignumber")).toBe(`0.${"3".repeat(64)}`);
  });
  it("the restricted scope holds in every mode", () => {
    for (const mode of ["fraction", "bignumber"] as const) {
      expect(() => evaluateExpression('evaluate("1+1")', mode)).toThrow(/not allowed/);
      expect(() => evaluateExpression("f(x) = x", mode)).toThrow(/Function definitions are not allowed/);
    }
  });
});
