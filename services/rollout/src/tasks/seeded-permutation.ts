// A deterministic permutation of 0..n-1 from an integer seed (Fisher–Yates driven by mulberry32), so
// `shuffle_seed` picks the same tasks in the same order on every machine and Node version.
import { rngStream } from "@rlfactory/kit";

/** The indices 0..n-1 in an order fixed by `seed` (any safe integer; its high bits count too). */
export function seededPermutation(n: number, seed: number): number[] {
  if (!Number.isSafeInteger(seed)) throw new Error(`shuffle seed must be a safe integer, got ${seed}`);
  const high = Math.floor(seed / 4294967296);
  const next = rngStream((seed ^ Math.imul(high, 0x9e3779b1)) >>> 0);
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}
