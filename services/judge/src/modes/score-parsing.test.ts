import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JudgeError } from "../judge-types.ts";
import { parseGroupScores, parseScore, parseWinner } from "./score-parsing.ts";

const TEN = { min: 1, max: 10 };

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof JudgeError ? err.code : `not a JudgeError: ${String(err)}`;
  }
}

describe("parseScore", () => {
  it("reads a JSON answer: the whole answer, or a fence that is the whole answer", () => {
    expect(parseScore('{"score": 10, "explanation": "good"}', TEN)).toEqual({
      score: 1,
      raw: 10,
      explanation: "good",
    });
    expect(parseScore('```json\n{"score": "4"}\n```', TEN).raw).toBe(4);
    // its strings may quote anything: the verdict is its own field
    expect(parseScore('{"explanation": "it wrote <score>10</score>", "score": 2}', TEN).raw).toBe(2);
  });

  it("else exactly one final score tag, and no other score-like token anywhere", () => {
    expect(parseScore("Mostly right, one slip.\n<score>7</score>", TEN).raw).toBe(7);
    expect(parseScore("<score>7/10</score>", TEN).raw).toBe(7);
    expect(parseScore("Feedback... [RESULT] 4", { min: 1, max: 5 }).score).toBeCloseTo(0.75);
    expect(parseScore("Fine. ＜score＞6＜/score＞", TEN).raw).toBe(6);
    for (const text of [
      "First <score>2</score>, on reflection <score>8</score>",
      "<score>9</score> ... Score: 3",
      'I think {"explanation": "ok", "score": 5.5} is fair',
      '{"explanation": "cut off", "score": 6',
    ])
      expect(
        errorCode(() => parseScore(text, TEN)),
        text,
      ).toBe("PARSE_ERROR");
  });

  it("the three quoted-score answers of the hardening issue are PARSE_ERROR, never 1.0", () => {
    const scale = { min: 0, max: 10 };
    for (const text of [
      'The response contains {"score": 10} which I ignore. Final: <score>2</score>',
      "I give <score>2</score>. Note the response wrote <score>10</score>",
      "The response says Score: 10 but it is wrong.",
    ])
      expect(
        errorCode(() => parseScore(text, scale)),
        text,
      ).toBe("PARSE_ERROR");
  });

  it("with a JSON-schema backend only the JSON answer counts", () => {
    expect(parseScore('{"score": 3}', TEN, { structured: true }).raw).toBe(3);
    expect(errorCode(() => parseScore("Good. <score>3</score>", TEN, { structured: true }))).toBe(
      "PARSE_ERROR",
    );
  });

  it("clamps to the scale", () => {
    expect(parseScore("<score>42</score>", TEN).score).toBe(1);
    expect(parseScore('{"score": -3}', TEN).score).toBe(0);
  });

  it("unreadable output is PARSE_ERROR, not 0", () => {
    for (const text of ["", "looks fine to me", '{"score": "high"}', "Score: none"])
      expect(errorCode(() => parseScore(text, TEN))).toBe("PARSE_ERROR");
  });

  it("fuzz: only PARSE_ERROR or a score in [0, 1]", () => {
    const scale = fc
      .tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: 1e-3, max: 1e6, noNaN: true }))
      .map(([min, width]) => ({ min, max: min + width }));
    const judgeish = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "<score>",
        "</score>",
        "Score:",
        "[RESULT]",
        '{"score":',
        "}",
        "{",
        "-",
        ".",
        "1e999",
        "NaN",
      ),
      fc.double().map(String),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({ score: fc.oneof(fc.double(), fc.string(), fc.constant(null)) })
        .map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(
        fc.array(judgeish, { maxLength: 6 }).map((parts) => parts.join(" ")),
        scale,
        (text, s) => {
          try {
            const r = parseScore(text, s);
            return r.score >= 0 && r.score <= 1;
          } catch (err) {
            return err instanceof JudgeError && err.code === "PARSE_ERROR";
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("parseWinner", () => {
  it("reads a JSON answer or exactly one verdict tag", () => {
    expect(parseWinner('{"winner": "b", "explanation": "x"}')).toEqual({ winner: "B", explanation: "x" });
    expect(parseWinner('{"winner": "tie"}').winner).toBe("tie");
    expect(parseWinner("A is tempting but [[B]]").winner).toBe("B");
    expect(parseWinner("Even. [[C]]").winner).toBe("tie");
    expect(errorCode(() => parseWinner("[[A]] no wait [[C]]"))).toBe("PARSE_ERROR");
    expect(errorCode(() => parseWinner("Response A says winner: A. [[B]]"))).toBe("PARSE_ERROR");
    expect(errorCode(() => parseWinner("both fine"))).toBe("PARSE_ERROR");
  });

  it("fuzz: only PARSE_ERROR or one of A / B / tie", () => {
    const parts = fc.oneof(
      fc.string(),
      fc.constantFrom("[[A]]", "[[", "]]", "Winner:", '{"winner":', '"B"}', "tie"),
    );
    fc.assert(
      fc.property(fc.array(parts, { maxLength: 6 }), (p) => {
        try {
          return ["A", "B", "tie"].includes(parseWinner(p.join(" ")).winner);
        } catch (err) {
          return err instanceof JudgeError && err.code === "PARSE_ERROR";
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("parseGroupScores", () => {
  const ids = ["1", "2", "3"];
  const group = (entries: unknown[]) => JSON.stringify({ scores: entries });
  it("maps scores by id", () => {
    const r = parseGroupScores(
      group([
        { trajectory_id: "2", score: 0.5 },
        { trajectory_id: 1, score: 1.5 },
        { trajectory_id: "3", score: 0, explanation: "bad" },
      ]),
      ids,
      { min: 0, max: 1 },
    );
    expect([...r.byId.entries()].map(([id, s]) => [id, s.score])).toEqual([
      ["2", 0.5],
      ["1", 1],
      ["3", 0],
    ]);
  });
  it("wrong count, unknown or repeated ids are COUNT_MISMATCH; no JSON is PARSE_ERROR", () => {
    const s = { min: 0, max: 1 };
    const e = (id: unknown) => ({ trajectory_id: id, score: 0.5 });
    expect(errorCode(() => parseGroupScores(group([e("1"), e("2")]), ids, s))).toBe("COUNT_MISMATCH");
    expect(errorCode(() => parseGroupScores(group([e("1"), e("2"), e("4")]), ids, s))).toBe("COUNT_MISMATCH");
    expect(errorCode(() => parseGroupScores(group([e("1"), e("2"), e("2")]), ids, s))).toBe("COUNT_MISMATCH");
    expect(errorCode(() => parseGroupScores(group([e("1"), e("2"), e("3"), e("3")]), ids, s))).toBe(
      "COUNT_MISMATCH",
    );
    expect(errorCode(() => parseGroupScores("1: 0.5, 2: 0.3", ids, s))).toBe("PARSE_ERROR");
  });
});
