// EM and F1 against hand-worked cases of SQuAD's official `normalize_answer` / `f1_score` and
// HotpotQA's yes/no/noanswer rule (the expected values follow the Python scripts' semantics).

import { describe, expect, it } from "vitest";
import { exactMatch, f1Against, f1Score, normalizeAnswer } from "./qa-match.ts";

describe("normalizeAnswer (SQuAD / Search-R1)", () => {
  it.each([
    ["The Beatles", "beatles"],
    ["  A  cat,  an apple!  ", "cat apple"],
    ["Theatre", "theatre"], // an article only as a whole word
    ["An Apple a Day", "apple day"],
    ["U.S.A.", "usa"], // punctuation is deleted, not replaced by a space
    ["rock-n-roll", "rocknroll"],
    ["the-the", "thethe"], // articles go after punctuation: no whole-word "the" is left
    ["the\u00a0Beatles", "beatles"], // NBSP (NQ)
    ["New\u00a0York\u202fCity", "new york city"],
    ["l'an 2000", "lan 2000"],
    ["“Hello”", "“hello”"], // string.punctuation is ASCII only: curly quotes stay
    ["éa", "éa"], // Python's \b is Unicode-aware: no boundary between é and a
    ["Über the top", "über top"],
    ["the 1990s", "1990s"],
    ["_a_", ""], // '_' is punctuation; what is left is an article
    ["tab\tand\nnewline", "tab and newline"],
    ["", ""],
  ])("%j → %j", (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });
});

describe("exactMatch", () => {
  it.each([
    ["The Beatles", ["Beatles"], 1],
    ["beatles!", ["The Beatles"], 1],
    ["Paul", ["John", "Paul"], 1], // any gold
    ["Pau", ["John", "Paul"], 0],
    ["New York City", ["New York"], 0],
    ["1,000", ["1000"], 1],
    ["the Beatles", ["the\u00a0Beatles"], 1],
    ["the", ["a"], 1], // both normalise to "" (the script compares strings)
  ] as const)("%j vs %j → %d", (prediction, golds, expected) => {
    expect(exactMatch(prediction, golds)).toBe(expected);
  });
});

describe("f1 (SQuAD v1.1 token F1, HotpotQA yes/no rule)", () => {
  it.each([
    // P = 2/2, R = 2/4 → 2·1·0.5/1.5
    ["the cat sat", "cat sat on mat", 2 / 3],
    // Counter intersection: {cat: 1, dog: 1} → P = R = 2/3
    ["cat cat dog", "cat dog dog", 2 / 3],
    ["Barack Obama", "barack obama", 1],
    ["Obama", "Barack Obama", 2 / 3], // P = 1, R = 1/2
    ["Michelle", "Barack Obama", 0],
    ["yes", "yes", 1],
    ["yes", "no", 0],
    ["yes it is", "yes", 0], // gold is yes, prediction differs: 0 (plain SQuAD would give 0.5)
    ["yes", "yes it is", 0],
    ["noanswer", "noanswer", 1],
    ["the", "a", 0], // both empty: no common token → 0, while EM is 1
  ])("%j vs %j", (prediction, gold, expected) => {
    expect(f1Against(prediction, gold)).toBeCloseTo(expected, 12);
  });

  it("takes the best gold", () => {
    // "new york city" vs "new york": P = 2/3, R = 1 → 0.8; vs "nyc": 0
    expect(f1Score("New York City", ["NYC", "New York"])).toBeCloseTo(0.8, 12);
    expect(f1Score("anything", [])).toBe(0);
  });
});
