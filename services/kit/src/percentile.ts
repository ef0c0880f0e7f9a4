// The one percentile of the project: exact nearest-rank order statistics (no interpolation), so every
// reported p50/p95/p99 is a value that actually occurred. The rollout report (summary, histogram), the
// chaos scenarios and the benchmarks all use it; nothing else computes a percentile.

/**
 * Nearest-rank percentile of `values` (any order): the smallest value such that at least `p` percent
 * of the values are ≤ it, i.e. the sorted value at 1-based rank ⌈p/100 · n⌉ (rank 1 for p = 0).
 * Null for an empty array. `p` is a percent in [0, 100].
 */
export function nearestRankPercentile(values: readonly number[], p: number): number | null {
  return percentileOfSorted(sortAscending(values), p);
}

/** Same as {@link nearestRankPercentile} on an array already sorted ascending (no copy, no sort). */
export function percentileOfSorted(sorted: readonly number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
  const n = sorted.length;
  if (n === 0) return null;
  // p·n is exact for integer percents and realistic n; the epsilon absorbs 99.9·n style rounding.
  const rank = Math.max(1, Math.ceil((p * n) / 100 - 1e-9));
  return sorted[Math.min(rank, n) - 1]!;
}

export function sortAscending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** [min, max] of the values (a loop: no argument spread, so any length works); null when empty. */
export function extent(values: readonly number[]): [number, number] | null {
  if (values.length === 0) return null;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}
