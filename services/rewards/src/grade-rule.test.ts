// gradeRule's own rules, beside each grader's metric tests: where references come from and how several
// are combined, the QA graders in the language, and the errors (a code, never a 0). The judge's entry
// (services/judge/src/rule-graders/grade-rule.test.ts) runs the full table of every grader.
import { describe, expect, it } from "vitest";
import { checkGraderSpec, gradeRule, needsReference, parseGraderSpec } from "./grade-rule.ts";

describe("references", () => {
  it("a grader's own reference wins over the caller's", () => {
    const grade = gradeRule(
      { type: "exact_match", reference: "Paris" },
      { response: "paris", references: ["Lyon"] },
    );
    expect(grade).toEqual({ score: 1, detail: { type: "exact_match", reference_from: "grader" } });
  });

  it("with several references a grader scores the best over them; `ne` passes only when none is equal", () => {
    const refs = ["Lyon", "Paris", "  "];
    expect(
      gradeRule({ type: "string_check", operation: "ieq" }, { response: "PARIS", references: refs }).score,
    ).toBe(1);
    expect(
      gradeRule({ type: "string_check", operation: "ne" }, { response: "Paris", references: refs }).score,
    ).toBe(0);
    expect(
      gradeRule({ type: "string_check", operation: "ne" }, { response: "Nice", references: refs }).score,
    ).toBe(1);
    const f1 = gradeRule(
      { type: "f1" },
      { response: "the city of Paris", references: ["Lyon", "Paris city"] },
    );
    expect(f1.score).toBeCloseTo(0.8, 12); // tokens {city, of, paris} vs {paris, city}: P 2/3, R 1
    const sim = gradeRule(
      { type: "text_similarity", metric: "rouge_1", pass_threshold: 0.9 },
      { response: "police killed the gunman", references: ["a dog", "police killed the gunman"] },
    );
    expect(sim.score).toBe(1);
  });

  it("no reference at all (none given, or only blank ones) is NO_REFERENCE naming the grader's path", () => {
    const spec = { type: "multi", graders: { em: { type: "exact_match" } }, calculate_output: "em" };
    for (const references of [[], [" "]]) {
      expect(() => gradeRule(spec, { response: "x", references })).toThrow(
        expect.objectContaining({
          code: "NO_REFERENCE",
          message: expect.stringMatching(/grader\.graders\.em/),
        }),
      );
    }
  });

  it("needsReference: true when some grader lacks its own", () => {
    expect(needsReference(parseGraderSpec({ type: "f1" }))).toBe(true);
    expect(needsReference(parseGraderSpec({ type: "f1", reference: "x" }))).toBe(false);
    const mixed = {
      type: "multi",
      graders: { a: { type: "f1", reference: "x" }, b: { type: "f1" } },
      calculate_output: "a",
    };
    expect(needsReference(parseGraderSpec(mixed))).toBe(true);
  });
});

describe("checkGraderSpec", () => {
  it("refuses, before any grading, a formula that does not compile and nesting too deep", () => {
    const bad = parseGraderSpec({ type: "multi", graders: { a: { type: "f1" } }, calculate_output: "a + b" });
    expect(() => checkGraderSpec(bad)).toThrow(expect.objectContaining({ code: "INVALID_GRADER" }));
    let deep: unknown = { type: "f1" };
    for (let i = 0; i < 8; i++) deep = { type: "multi", graders: { g: deep }, calculate_output: "g" };
    expect(() => checkGraderSpec(parseGraderSpec(deep))).toThrow(/deeper than 8/);
    expect(() => checkGraderSpec(parseGraderSpec({ type: "f1" }))).not.toThrow();
  });
});
