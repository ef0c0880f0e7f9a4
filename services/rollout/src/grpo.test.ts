// GRPO / Dr. GRPO group advantages: hand-computed small groups (unbiased std, as verl's torch.std),
// then properties over random groups (fast-check).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupAdvantages } from "./grpo.ts";

const EPS = 1e-6;
const close = (actual: (number | null)[], expected: (number | null)[], digits = 9) => {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    if (e === null || e === undefined) expect(a).toBe(e ?? null);
    else expect(a).toBeCloseTo(e, digits);
  });
};

describe("groupAdvantages: hand-computed groups", () => {
  it("[1, 0, 0, 0]: mean 0.25, unbiased std √(0.75/3) = 0.5", () => {
    const { advantages, stats } = groupAdvantages([1, 0, 0, 0], { mode: "grpo" });
    close(
      advantages,
      [0.75 / (0.5 + EPS), -0.25 / (0.5 + EPS), -0.25 / (0.5 + EPS), -0.25 / (0.5 + EPS)],
      12,
    );
    close(advantages, [1.5, -0.5, -0.5, -0.5], 5);
    expect(stats).toEqual({ count: 4, scored: 4, mean: 0.25, std: 0.5, min: 0, max: 1, all_equal: false });
    close(groupAdvantages([1, 0, 0, 0], { mode: "dr_grpo" }).advantages, [0.75, -0.25, -0.25, -0.25], 12);
  });

  it("[1, 1, 0, 0]: std √(1/3), advantages ±√3/2", () => {
    close(groupAdvantages([1, 1, 0, 0], { mode: "grpo", epsilon: 0 }).advantages, [
      Math.sqrt(3) / 2,
      Math.sqrt(3) / 2,
      -Math.sqrt(3) / 2,
      -Math.sqrt(3) / 2,
    ]);
  });

  it("[0, 1]: unbiased std √0.5, so ±0.7071 (a population std would give ±1)", () => {
    close(
      groupAdvantages([0, 1], { mode: "grpo", epsilon: 0 }).advantages,
      [-Math.SQRT1_2, Math.SQRT1_2],
      12,
    );
  });

  it("[0.2, 0.5, 1.1] with Dr. GRPO: r − 0.6", () => {
    const { advantages, stats } = groupAdvantages([0.2, 0.5, 1.1], { mode: "dr_grpo" });
    close(advantages, [-0.4, -0.1, 0.5], 12);
    // deviations −0.4, −0.1, 0.5: Σd² = 0.42, /2 → std √0.21
    expect(stats.std).toBeCloseTo(Math.sqrt(0.21), 12);
  });

  it("nulls (infrastructure failures) are left out and get null: [1, null, 0, 0, null] ≡ [1, 0, 0]", () => {
    // mean 1/3; deviations 2/3, −1/3, −1/3: Σd² = 2/3, /2 → std √(1/3)
    const s = Math.sqrt(1 / 3);
    const { advantages, stats } = groupAdvantages([1, null, 0, 0, null], { mode: "grpo" });
    close(advantages, [2 / 3 / (s + EPS), null, -1 / 3 / (s + EPS), -1 / 3 / (s + EPS), null], 12);
    expect(stats).toMatchObject({ count: 5, scored: 3, min: 0, max: 1, all_equal: false });
    expect(stats.mean).toBeCloseTo(1 / 3, 15);
  });

  it("all-equal groups, single samples and all-null groups get 0 / null, never a division by ~0", () => {
    expect(groupAdvantages([0.1, 0.1, 0.1], { mode: "grpo" })).toEqual({
      advantages: [0, 0, 0],
      stats: {
        count: 3,
        scored: 3,
        mean: expect.closeTo(0.1, 15),
        std: expect.any(Number),
        min: 0.1,
        max: 0.1,
        all_equal: true,
      },
    });
    expect(groupAdvantages([1, 1], { mode: "dr_grpo" }).advantages).toEqual([0, 0]);
    expect(groupAdvantages([null, 0.7, null], { mode: "grpo" })).toEqual({
      advantages: [null, 0, null],
      stats: { count: 3, scored: 1, mean: 0.7, std: 0, min: 0.7, max: 0.7, all_equal: true },
    });
    expect(groupAdvantages([null, null], { mode: "grpo" })).toEqual({
      advantages: [null, null],
      stats: { count: 2, scored: 0, mean: null, std: null, min: null, max: null, all_equal: true },
    });
    expect(groupAdvantages([], { mode: "grpo" }).advantages).toEqual([]);
  });

  it("refuses non-finite rewards and a negative epsilon", () => {
    expect(() => groupAdvantages([1, Number.NaN], { mode: "grpo" })).toThrow(
      "rewards[1] = NaN is not a finite number or null",
    );
    expect(() => groupAdvantages([1], { mode: "grpo", epsilon: -1 })).toThrow("epsilon must be ≥ 0");
  });
});

describe("groupAdvantages: properties", () => {
  const reward = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true });
  const group = fc.array(reward, { minLength: 2, maxLength: 16 });
  const spread = (rs: number[]) => Math.max(...rs) - Math.min(...rs);

  it("advantages sum to ~0 (both modes)", () => {
    fc.assert(
      fc.property(group, fc.constantFrom("grpo" as const, "dr_grpo" as const), (rs, mode) => {
        const sum = groupAdvantages(rs, { mode }).advantages.reduce<number>((a, b) => a + (b ?? 0), 0);
        expect(Math.abs(sum)).toBeLessThan(1e-6 * rs.length * (mode === "grpo" ? 1 : 10));
      }),
    );
  });

  it("GRPO with ε = 0: Σ A² = n − 1 (unbiased std)", () => {
    fc.assert(
      fc.property(
        group.filter((rs) => spread(rs) > 1e-3),
        (rs) => {
          const a = groupAdvantages(rs, { mode: "grpo", epsilon: 0 }).advantages as number[];
          expect(a.reduce((s, x) => s + x * x, 0)).toBeCloseTo(rs.length - 1, 6);
        },
      ),
    );
  });

  // Exact with ε = 0; with ε > 0 only while c·std ≫ ε (ε is why a near-constant group is not blown up).
  it("GRPO (ε = 0) is invariant to scaling rewards by c > 0; both modes to adding a constant", () => {
    fc.assert(
      fc.property(
        group.filter((rs) => spread(rs) > 1e-2),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        (rs, c, k) => {
          const base = groupAdvantages(rs, { mode: "grpo", epsilon: 0 }).advantages as number[];
          const scaled = groupAdvantages(
            rs.map((r) => r * c),
            { mode: "grpo", epsilon: 0 },
          ).advantages as number[];
          for (const [i, x] of scaled.entries()) expect(x).toBeCloseTo(base[i]!, 9);
          const shifted = groupAdvantages(
            rs.map((r) => r + k),
            { mode: "dr_grpo" },
          ).advantages as number[];
          const dr = groupAdvantages(rs, { mode: "dr_grpo" }).advantages as number[];
          for (const [i, x] of shifted.entries()) expect(x).toBeCloseTo(dr[i]!, 9);
        },
      ),
    );
  });

  it("nulls are excluded: inserting them changes no other advantage", () => {
    fc.assert(
      fc.property(
        group,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom("grpo" as const, "dr_grpo" as const),
        (rs, at, mode) => {
          const withNulls: (number | null)[] = [...rs];
          for (const p of at) withNulls.splice(p % (withNulls.length + 1), 0, null);
          const plain = groupAdvantages(rs, { mode }).advantages;
          const mixed = groupAdvantages(withNulls, { mode });
          expect(mixed.advantages.filter((x) => x !== null)).toEqual(plain);
          withNulls.forEach((r, i) => {
            if (r === null) expect(mixed.advantages[i]).toBeNull();
          });
          expect(mixed.stats).toMatchObject({ count: withNulls.length, scored: rs.length });
        },
      ),
    );
  });

  it("higher reward never gets a lower advantage", () => {
    fc.assert(
      fc.property(group, fc.constantFrom("grpo" as const, "dr_grpo" as const), (rs, mode) => {
        const a = groupAdvantages(rs, { mode }).advantages as number[];
        for (let i = 0; i < rs.length; i++)
          for (let j = 0; j < rs.length; j++)
            if (rs[i]! > rs[j]!) expect(a[i]!).toBeGreaterThanOrEqual(a[j]!);
      }),
    );
  });
});
