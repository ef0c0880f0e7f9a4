// BLEU against the worked examples of Papineni et al. (2002) and the value NLTK's documentation publishes
// for them; smoothed values are computed by hand from the definitions in the tests.
import { describe, expect, it } from "vitest";
import { bleu, modifiedPrecision } from "./bleu.ts";

const split = (s: string) => s.split(" ");
// Papineni et al. 2002, Example 1 (NLTK's sentence_bleu doctest uses the same whitespace tokens).
const candidate1 = split(
  "It is a guide to action which ensures that the military always obeys the commands of the party",
);
const candidate2 = split(
  "It is to insure the troops forever hearing the activity guidebook that party direct",
);
const references = [
  split("It is a guide to action that ensures that the military will forever heed Party commands"),
  split(
    "It is the guiding principle which guarantees the military forces always being under the command of the Party",
  ),
  split("It is the practical guide for the army always to heed the directions of the party"),
];

describe("modified n-gram precision (Papineni et al. 2002, section 2.1)", () => {
  it("clips a repeated word to its count in a reference (Example 2: 2/7)", () => {
    const lower = (s: string) => split(s.toLowerCase());
    expect(
      modifiedPrecision(
        lower("the the the the the the the"),
        [lower("The cat is on the mat"), lower("There is a cat on the mat")],
        1,
      ),
    ).toEqual({ matches: 2, total: 7 });
  });

  it("gives the paper's unigram and bigram precisions for Example 1", () => {
    expect(modifiedPrecision(candidate1, references, 1)).toEqual({ matches: 17, total: 18 });
    expect(modifiedPrecision(candidate2, references, 1)).toEqual({ matches: 8, total: 14 });
    expect(modifiedPrecision(candidate1, references, 2)).toEqual({ matches: 10, total: 17 });
    expect(modifiedPrecision(candidate2, references, 2)).toEqual({ matches: 1, total: 13 });
  });
});

describe("bleu", () => {
  it("reproduces NLTK's published sentence_bleu for Example 1 (0.5045666840058485)", () => {
    const result = bleu(candidate1, references);
    expect(result.bleu).toBeCloseTo(0.5045666840058485, 12);
    expect(result.brevityPenalty).toBe(1);
  });

  it("is 0 without smoothing when an order has no match (NLTK: candidate 2 → 0)", () => {
    expect(bleu(candidate2, references).bleu).toBe(0);
  });

  it("exp smoothing replaces the k-th zero precision with 1/(2^k · total)", () => {
    // Candidate 2 has 14 tokens; the closest reference has 16. Trigrams: 0/12, 4-grams: 0/11.
    const expected =
      Math.exp(1 - 16 / 14) * ((8 / 14) * (1 / 13) * (1 / (2 * 12)) * (1 / (4 * 11))) ** (1 / 4);
    expect(bleu(candidate2, references, { smoothing: "exp" }).bleu).toBeCloseTo(expected, 12);
  });

  it("applies the brevity penalty exp(1 − r/c) to a short candidate", () => {
    const result = bleu(split("the cat"), [split("the cat is on the mat")], { maxOrder: 2 });
    expect(result.brevityPenalty).toBeCloseTo(Math.exp(1 - 6 / 2), 12);
    expect(result.bleu).toBeCloseTo(Math.exp(-2), 12);
  });

  it("with exp smoothing, a one-word exact answer scores 1 (orders it cannot have are left out)", () => {
    expect(bleu(["paris"], [["paris"]], { smoothing: "exp" }).bleu).toBe(1);
    expect(bleu(["paris"], [["paris"]]).bleu).toBe(0);
  });

  it("scores an empty candidate 0", () => {
    expect(bleu([], [["a"]], { smoothing: "exp" }).bleu).toBe(0);
  });
});
