import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extent, nearestRankPercentile } from "./percentile.ts";

describe("nearestRankPercentile", () => {
  it("matches the textbook nearest-rank example (15, 20, 35, 40, 50), in any input order", () => {
    const xs = [40, 15, 50, 35, 20];
    expect(nearestRankPercentile(xs, 5)).toBe(15);
    expect(nearestRankPercentile(xs, 30)).toBe(20);
    expect(nearestRankPercentile(xs, 40)).toBe(20);
    expect(nearestRankPercentile(xs, 50)).toBe(35);
    expect(nearestRankPercentile(xs, 100)).toBe(50);
  });

  it("on 1..100 the p-th percentile is p, and p0 is the minimum", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    for (const p of [1, 7, 50, 95, 99, 100]) expect(nearestRankPercentile(xs, p)).toBe(p);
    expect(nearestRankPercentile(xs, 0)).toBe(1);
  });

  it("on 1..10: p50 = 5, p95 = 10 (rank ⌈9.5⌉), p90 = 9", () => {
    const xs = [3, 1, 4, 10, 5, 9, 2, 6, 8, 7];
    expect(nearestRankPercentile(xs, 50)).toBe(5);
    expect(nearestRankPercentile(xs, 95)).toBe(10);
    expect(nearestRankPercentile(xs, 90)).toBe(9);
  });

  it("is null on an empty array and rejects a percent outside [0, 100]", () => {
    expect(nearestRankPercentile([], 50)).toBeNull();
    expect(() => nearestRankPercentile([1], 101)).toThrow(/\[0, 100\]/);
    expect(() => nearestRankPercentile([1], Number.NaN)).toThrow(RangeError);
  });

  it("returns an element with at least p% of values ≤ it and fewer than p% below it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 100 }),
        (xs, p) => {
          const v = nearestRankPercentile(xs, p)!;
          expect(xs).toContain(v);
          expect(xs.filter((x) => x <= v).length * 100).toBeGreaterThanOrEqual(p * xs.length);
          expect(xs.filter((x) => x < v).length * 100).toBeLessThan(p * xs.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("extent", () => {
  it("gives [min, max], null when empty, and handles arrays too long to spread", () => {
    expect(extent([])).toBeNull();
    expect(extent([3, -2, 7])).toEqual([-2, 7]);
    const big = Array.from({ length: 300_000 }, (_, i) => i);
    expect(extent(big)).toEqual([0, 299_999]);
  });
});
