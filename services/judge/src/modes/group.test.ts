import { describe, expect, it } from "vitest";
import { shuffledOrder } from "./group.ts";

describe("shuffledOrder", () => {
  it("is a permutation, the same for the same seed, different across seeds", () => {
    const orders = Array.from({ length: 20 }, (_, seed) => shuffledOrder(8, seed));
    for (const o of orders) expect([...o].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(shuffledOrder(8, 3)).toEqual(orders[3]);
    expect(new Set(orders.map((o) => o.join())).size).toBeGreaterThan(15);
    expect(shuffledOrder(1, 5)).toEqual([0]);
  });
});
