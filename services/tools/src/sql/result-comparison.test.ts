import { describe, expect, it } from "vitest";
import { cellKey } from "./cell-key.ts";
import { resultsMatch } from "./result-comparison.ts";

const keys = (rows: unknown[][]) => rows.map((row) => row.map(cellKey));
const match = (gold: unknown[][], predicted: unknown[][], mode: "set" | "bag" | "ordered" = "bag") =>
  resultsMatch(keys(gold), keys(predicted), mode);

describe("resultsMatch", () => {
  it("compares rows as multisets by default and as sequences when ordered", () => {
    const rows = [
      ["a", 1],
      ["b", 2],
    ];
    const reversed = [
      ["b", 2],
      ["a", 1],
    ];
    expect(match(rows, reversed, "bag")).toBe(true);
    expect(match(rows, reversed, "ordered")).toBe(false);
    expect(match(rows, rows, "ordered")).toBe(true);
    expect(match(rows, [["a", 1]], "bag")).toBe(false);
    expect(match(rows, [...rows, ["c", 3]], "bag")).toBe(false);
  });

  it("counts duplicates in bag mode and ignores them in set mode", () => {
    const withDuplicate = [["France"], ["France"], ["Netherlands"]];
    const distinct = [["Netherlands"], ["France"]];
    expect(match(withDuplicate, distinct, "bag")).toBe(false);
    expect(match(withDuplicate, distinct, "set")).toBe(true);
    // Same distinct rows, different multiplicities.
    expect(match([["a"], ["a"], ["b"]], [["a"], ["b"], ["b"]], "bag")).toBe(false);
    expect(match([["a"], ["a"], ["b"]], [["a"], ["b"], ["b"]], "set")).toBe(true);
  });

  it("accepts any order of columns, but not other columns", () => {
    const gold = [
      ["Joe", "NL", 52],
      ["Tim", "US", 32],
    ];
    const permuted = [
      [32, "Tim", "US"],
      [52, "Joe", "NL"],
    ];
    expect(match(gold, permuted, "bag")).toBe(true);
    expect(match(gold, [permuted[1]!, permuted[0]!], "ordered")).toBe(true);
    expect(match(gold, permuted, "ordered")).toBe(false);
    // Each column's values agree, but not row-wise under any permutation.
    const shuffled = [
      ["Joe", "US", 52],
      ["Tim", "NL", 32],
    ];
    expect(match(gold, shuffled, "bag")).toBe(false);
    expect(match(gold, [["Joe", "NL"]], "bag")).toBe(false);
  });

  it("finds the right permutation among columns with the same values", () => {
    // Columns 0 and 1 hold the same multiset; only one mapping makes the rows equal.
    const gold = [
      [1, 2, "x"],
      [2, 1, "y"],
    ];
    expect(
      match(gold, [
        ["x", 1, 2],
        ["y", 2, 1],
      ]),
    ).toBe(true);
    expect(
      match(gold, [
        ["x", 2, 1],
        ["y", 1, 2],
      ]),
    ).toBe(true);
    expect(
      match(gold, [
        ["y", 2, 1],
        ["x", 2, 1],
      ]),
    ).toBe(false);
  });

  it("handles wide results with many identical columns", () => {
    const width = 12;
    const row = Array.from({ length: width }, () => null);
    expect(match([row, row], [row, row])).toBe(true);
    const other = [...row.slice(1), 0];
    expect(match([row, row], [other, other])).toBe(false);
  });

  it("treats two empty results as equal, whatever their columns", () => {
    expect(match([], [])).toBe(true);
    expect(match([], [[1]])).toBe(false);
  });

  it("normalises numbers but keeps text exact", () => {
    expect(match([[1]], [[1.0]])).toBe(true);
    expect(match([[37]], [[(52 + 32 + 29 + 41 + 43 + 25) / 6]])).toBe(true);
    expect(match([[0.3]], [[0.1 + 0.2]])).toBe(true);
    expect(match([[0.3]], [[0.31]])).toBe(false);
    expect(match([[1]], [["1"]])).toBe(false);
    expect(match([["abc"]], [["ABC"]])).toBe(false);
    expect(match([["abc"]], [["abc "]])).toBe(false);
    expect(match([[null]], [[null]])).toBe(true);
    expect(match([[null]], [["null"]])).toBe(false);
    expect(match([[0]], [[-0]])).toBe(true);
    expect(match([[Buffer.from("ab")]], [[Buffer.from("ab")]])).toBe(true);
    expect(match([[Buffer.from("ab")]], [["ab"]])).toBe(false);
  });
});
