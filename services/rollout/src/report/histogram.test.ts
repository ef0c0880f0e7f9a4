import { describe, expect, it } from "vitest";
import { integerBins, linearBins, logBins } from "./histogram.ts";

const nonEmpty = (bins: { lo: number; hi: number; count: number }[]) =>
  bins.filter((b) => b.count > 0).map((b) => [b.lo, b.hi, b.count]);

describe("logBins", () => {
  it("puts latencies in 1-2-5 bins, trimmed to the data, keeping inner gaps", () => {
    const bins = logBins([0.4, 5, 7, 10, 20, 300]);
    expect(bins.map((b) => b.lo)).toEqual([0, 1, 2, 5, 10, 20, 50, 100, 200]);
    expect(bins[bins.length - 1]!.hi).toBe(500);
    expect(nonEmpty(bins)).toEqual([
      [0, 1, 1],
      [5, 10, 2],
      [10, 20, 1],
      [20, 50, 1],
      [200, 500, 1],
    ]);
  });

  it("starts at the first value's bin and treats an edge value as the start of the next bin", () => {
    expect(nonEmpty(logBins([40, 1500]))).toEqual([
      [20, 50, 1],
      [1000, 2000, 1],
    ]);
    expect(logBins([40, 1500])[0]!.lo).toBe(20);
    expect(nonEmpty(logBins([100]))).toEqual([[100, 200, 1]]);
    expect(logBins([])).toEqual([]);
  });
});

describe("linearBins", () => {
  it("splits [min, max] into equal bins, the maximum in the last", () => {
    const bins = linearBins([0, 0, 0.5, 1, 1, 1], 10);
    expect(bins).toHaveLength(10);
    expect(nonEmpty(bins).map(([, , c]) => c)).toEqual([2, 1, 3]);
    expect(bins[9]!.hi).toBe(1);
  });

  it("gives one bin when all values are equal", () => {
    expect(linearBins([0.7, 0.7, 0.7])).toEqual([{ lo: 0.7, hi: 0.7, count: 3 }]);
  });
});

describe("integerBins", () => {
  it("one bin per integer between min and max", () => {
    const bins = integerBins([1, 1, 3, 4, 1]);
    expect(bins.map((b) => [b.lo, b.count])).toEqual([
      [1, 3],
      [2, 0],
      [3, 1],
      [4, 1],
    ]);
  });

  it("widens bins past maxBins and keeps every value", () => {
    const values = Array.from({ length: 100 }, (_, i) => i);
    const bins = integerBins(values, 10);
    expect(bins).toHaveLength(10);
    expect(bins.every((b) => b.hi - b.lo === 10 && b.count === 10)).toBe(true);
  });
});
