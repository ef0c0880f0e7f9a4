// Binning for the report's charts: equal-width bins (rewards), integer bins (turn counts) and 1-2-5
// log-scale bins (latencies). Bins are half-open [lo, hi); only `linearBins`' last bin also holds its
// hi (the maximum value).
import { extent } from "@rlfactory/kit";

export interface Bin {
  lo: number;
  hi: number;
  count: number;
}

function fill(edges: readonly number[], values: readonly number[]): Bin[] {
  const bins: Bin[] = [];
  for (let i = 0; i + 1 < edges.length; i++) bins.push({ lo: edges[i]!, hi: edges[i + 1]!, count: 0 });
  const last = bins.length - 1;
  for (const v of values) {
    // Binary search for the last edge ≤ v; values at or beyond the top edge land in the last bin.
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bins[mid]!.lo <= v) lo = mid;
      else hi = mid - 1;
    }
    bins[lo]!.count++;
  }
  return bins;
}

/**
 * `count` equal-width bins spanning [min, max] of the values; one bin [v, v] when all values are equal.
 * Empty input gives no bins.
 */
export function linearBins(values: readonly number[], count = 10): Bin[] {
  const range = extent(values);
  if (range === null) return [];
  const [min, max] = range;
  if (min === max) return [{ lo: min, hi: max, count: values.length }];
  const width = (max - min) / count;
  const edges = Array.from({ length: count + 1 }, (_, i) => (i === count ? max : min + i * width));
  return fill(edges, values);
}

/**
 * Bins for non-negative integers (turn counts): one bin per integer from min to max, or wider
 * integer-aligned bins when that would exceed `maxBins`. A bin [lo, hi) holds lo … hi − 1.
 */
export function integerBins(values: readonly number[], maxBins = 30): Bin[] {
  const range = extent(values);
  if (range === null) return [];
  const [min, max] = range;
  const width = Math.max(1, Math.ceil((max - min + 1) / maxBins));
  const edges: number[] = [];
  for (let e = min; e <= max; e += width) edges.push(e);
  edges.push(edges[edges.length - 1]! + width);
  return fill(edges, values);
}

/** The 1-2-5 sequence of latency edges (ms): 0, 1, 2, 5, 10, 20, 50, … */
function oneTwoFive(index: number): number {
  if (index === 0) return 0;
  const k = index - 1;
  return [1, 2, 5][k % 3]! * 10 ** Math.floor(k / 3);
}

/**
 * Log-scale bins on the 1-2-5 edges [0, 1), [1, 2), [2, 5), [5, 10), [10, 20) … ms, trimmed to the
 * bins from the smallest to the largest value (empty bins in between are kept, so gaps show).
 */
export function logBins(values: readonly number[]): Bin[] {
  const range = extent(values);
  if (range === null) return [];
  const [min, max] = range;
  let first = 0;
  while (oneTwoFive(first + 1) <= min) first++;
  let last = first + 1;
  while (oneTwoFive(last) <= max) last++;
  const edges: number[] = [];
  for (let i = first; i <= last; i++) edges.push(oneTwoFive(i));
  return fill(edges, values);
}
