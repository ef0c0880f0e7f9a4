// gradeRule through its public spec language: one table per grader, multi with nested graders, and the
// bad specs that must fail as INVALID_REQUEST rather than score 0.
import { describe, expect, it } from "vitest";
import { gradeRule } from "./index.ts";

describe("string_check", () => {
  it.each([
    ["eq", "Paris", "Paris", 1],
    ["eq", " Paris\n", "Paris", 1],
    ["eq", "paris", "Paris", 0],
    ["ne", "London", "Paris", 1],
    ["ne", "Paris", "Paris", 0],
    ["ieq", "PARIS", "paris", 1],
    ["ieq", "Paris, France", "paris", 0],
    ["contains", "The answer is Paris.", "Paris", 1],
    ["contains", "The answer is paris.", "Paris", 0],
    ["icontains", "THE ANSWER IS PARIS.", "Paris", 1],
    ["icontains", "The answer is Lyon.", "Paris", 0],
    ["like", "The answer is Paris.", "Paris", 1],
    ["ilike", "the answer is paris.", "Paris", 1],
  ] as const)("%s(%j, %j) → %d", (operation, response, reference, expected) => {
    const { score, detail } = gradeRule({ type: "string_check", operation }, { response, reference });
    expect(score).toBe(expected);
    expect(detail).toMatchObject({ type: "string_check", operation, passed: expected === 1 });
  });

  it("uses the grader's own reference over the request's", () => {
    const grade = gradeRule(
      { type: "string_check", operation: "eq", reference: "42" },
      { response: "42", reference: "41" },
    );
    expect(grade).toMatchObject({ score: 1, detail: { reference_from: "grader" } });
  });
});

describe("text_similarity", () => {
  // Lin (2004), section 3.1: reference S1 "police killed the gunman"; S2 and S3 share ROUGE-1 and ROUGE-2
  // (3/4 and 1/3), while ROUGE-L tells them apart: 3/4 and 2/4.
  const reference = "police killed the gunman";
  it.each([
    ["rouge_1", "police kill the gunman", 3 / 4],
    ["rouge_2", "police kill the gunman", 1 / 3],
    ["rouge_l", "police kill the gunman", 3 / 4],
    ["rouge_1", "the gunman kill police", 3 / 4],
    ["rouge_2", "the gunman kill police", 1 / 3],
    ["rouge_l", "the gunman kill police", 2 / 4],
    // Case and punctuation do not count (rouge_score's tokenisation).
    ["rouge_l", "Police killed the gunman.", 1],
    // F1 of precision 3/3 and recall 3/6 (js-rouge's own documented example).
    ["rouge_1", "the cat sat", 2 / 3],
    ["rouge_1", "nothing in common", 0],
    ["rouge_1", "", 0],
  ] as const)("%s(%j) → %d", (metric, response, expected) => {
    const ref = response === "the cat sat" ? "the cat sat on the mat" : reference;
    const { score } = gradeRule({ type: "text_similarity", metric }, { response, reference: ref });
    expect(score).toBeCloseTo(expected, 12);
  });

  it("fuzzy_match is 1 − Levenshtein distance / longer length (kitten/sitting: distance 3)", () => {
    const { score } = gradeRule(
      { type: "text_similarity", metric: "fuzzy_match" },
      { response: "kitten", reference: "sitting" },
    );
    expect(score).toBeCloseTo(1 - 3 / 7, 12);
    expect(
      gradeRule({ type: "text_similarity", metric: "fuzzy_match" }, { response: " same ", reference: "same" })
        .score,
    ).toBe(1);
  });

  it("bleu is smoothed sentence BLEU-4 on lower-cased words, with its precisions in the detail", () => {
    const exact = gradeRule(
      { type: "text_similarity", metric: "bleu" },
      { response: "Paris.", reference: "paris" },
    );
    expect(exact.score).toBe(1);
    // 4 candidate words, 1 matching unigram; the zero orders are smoothed to 1/(2·3), 1/(4·2), 1/(8·1).
    const partial = gradeRule(
      { type: "text_similarity", metric: "bleu" },
      { response: "the answer is Paris", reference: "Paris" },
    );
    expect(partial.score).toBeCloseTo((1 / 4 / 6 / 8 / 8) ** (1 / 4), 12);
    expect(partial.detail).toMatchObject({ precisions: [1 / 4, 0, 0, 0], brevity_penalty: 1 });
  });

  it("with pass_threshold scores 1 at or above the threshold and 0 below, keeping the similarity", () => {
    const spec = { type: "text_similarity", metric: "rouge_l", pass_threshold: 0.75 };
    expect(gradeRule(spec, { response: "police kill the gunman", reference })).toMatchObject({
      score: 1,
      detail: { similarity: 0.75, passed: true },
    });
    expect(gradeRule(spec, { response: "the gunman kill police", reference })).toMatchObject({
      score: 0,
      detail: { similarity: 0.5, passed: false },
    });
  });
});

describe("multi", () => {
  it("combines named sub-scores with the formula and reports them", () => {
    const grade = gradeRule(
      {
        type: "multi",
        graders: {
          exact: { type: "string_check", operation: "ieq" },
          overlap: { type: "text_similarity", metric: "rouge_1" },
        },
        calculate_output: "0.25 * exact + 0.75 * overlap",
      },
      { response: "police kill the gunman", reference: "police killed the gunman" },
    );
    expect(grade.score).toBeCloseTo(0.25 * 0 + 0.75 * 0.75, 12);
    expect(grade.detail).toMatchObject({ sub_scores: { exact: 0, overlap: 0.75 }, clamped: false });
  });

  it("nests multi graders, each sub-grader with its own reference", () => {
    const grade = gradeRule(
      {
        type: "multi",
        graders: {
          format: { type: "string_check", operation: "contains", reference: "<answer>" },
          content: {
            type: "multi",
            graders: {
              a: { type: "string_check", operation: "icontains" },
              b: { type: "string_check", operation: "icontains", reference: "france" },
            },
            calculate_output: "(a + b) / 2",
          },
        },
        calculate_output: "format * content",
      },
      { response: "<answer>Paris</answer>", reference: "paris" },
    );
    expect(grade.score).toBe(0.5);
    expect(grade.detail).toMatchObject({
      sub_scores: { format: 1, content: 0.5 },
      sub_details: { content: { sub_scores: { a: 1, b: 0 } } },
    });
  });

  it.each([
    ["a + b", 1, 2],
    ["a - b - 1", 0, -1],
  ])("clamps %s to [0, 1] and says so", (calculate_output, score, raw) => {
    const grade = gradeRule(
      {
        type: "multi",
        graders: {
          a: { type: "string_check", operation: "eq" },
          b: { type: "string_check", operation: "eq" },
        },
        calculate_output,
      },
      { response: "x", reference: "x" },
    );
    expect(grade).toMatchObject({ score, detail: { raw_output: raw, clamped: true } });
  });
});

describe("bad specs fail as INVALID_REQUEST", () => {
  const eq = { type: "string_check", operation: "eq" };
  let deep: Record<string, unknown> = eq;
  for (let i = 0; i < 9; i++) deep = { type: "multi", graders: { g: deep }, calculate_output: "g" };

  it.each([
    [
      "an unknown type",
      { type: "score_model" },
      /Expected 'string_check' \| 'text_similarity' \| 'exact_match' \| 'f1' \| 'multi'/,
    ],
    ["a missing operation", { type: "string_check" }, /operation/],
    ["an unknown operation", { type: "string_check", operation: "regex" }, /operation/],
    ["an unknown field", { ...eq, input: "{{sample.output_text}}" }, /input/],
    ["an unknown metric", { type: "text_similarity", metric: "meteor" }, /metric/],
    ["a threshold above 1", { type: "text_similarity", metric: "bleu", pass_threshold: 2 }, /pass_threshold/],
    [
      "a sub-grader name that is not an identifier",
      { type: "multi", graders: { "a-b": eq }, calculate_output: "1" },
      /graders\["a-b"\]/,
    ],
    ["no sub-graders", { type: "multi", graders: {}, calculate_output: "1" }, /at least one/],
    [
      "a formula naming no sub-grader",
      { type: "multi", graders: { a: eq }, calculate_output: "a + b" },
      /unknown name "b"/,
    ],
    [
      "a formula with code in it",
      { type: "multi", graders: { a: eq }, calculate_output: "a.constructor('x')" },
      /not allowed|only these/,
    ],
    [
      "a bad nested grader",
      { type: "multi", graders: { a: { type: "string_check" } }, calculate_output: "a" },
      /graders\.a/,
    ],
    ["nesting deeper than 8", deep, /deeper than 8/],
    ["a spec that is not an object", "eq", /Invalid input/],
  ])("%s", (_, spec, message) => {
    expect(() => gradeRule(spec, { response: "x", reference: "x" })).toThrow(
      expect.objectContaining({ code: "INVALID_REQUEST", message: expect.stringMatching(message) }),
    );
  });

  it("a text_similarity input longer than the limit", () => {
    const spec = { type: "text_similarity", metric: "fuzzy_match" };
    expect(() => gradeRule(spec, { response: "x".repeat(100_001), reference: "x" })).toThrow(
      expect.objectContaining({
        code: "INVALID_REQUEST",
        message: expect.stringMatching(/the response has 100001/),
      }),
    );
  });

  it.each([
    ["string_check", eq],
    ["text_similarity", { type: "text_similarity", metric: "rouge_1" }],
    ["a nested grader", { type: "multi", graders: { inner: eq }, calculate_output: "inner" }],
  ])("%s without a reference (none on the grader or request, or a blank one)", (_, spec) => {
    for (const reference of [undefined, "  "]) {
      expect(() => gradeRule(spec, { response: "x", reference })).toThrow(
        expect.objectContaining({
          code: "INVALID_REQUEST",
          message: expect.stringMatching(/needs a reference/),
        }),
      );
    }
  });
});
