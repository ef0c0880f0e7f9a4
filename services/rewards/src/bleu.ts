// Sentence-level BLEU (Papineni et al., 2002) over token arrays, written from the paper's definition
// because no well-kept BLEU library exists on npm: modified (clipped) n-gram precisions up to order 4,
// their geometric mean with uniform weights, times the brevity penalty against the closest reference
// length. `smoothing: "exp"` is Chen & Cherry (2014) method 3 — sacreBLEU's sentence-level default — with
// sacreBLEU's effective order (orders the candidate is too short to have are left out), so short exact
// answers score 1 instead of 0.

export interface BleuOptions {
  /** Highest n-gram order (default 4). */
  maxOrder?: number;
  /** `none`: the paper's BLEU (0 whenever an order has no match); `exp`: see the header. Default `none`. */
  smoothing?: "none" | "exp";
}

export interface BleuResult {
  bleu: number;
  /** Modified n-gram precision per order (unsmoothed; NaN where the candidate has no n-grams of that order). */
  precisions: number[];
  brevityPenalty: number;
  candidateLength: number;
  /** The reference length closest to the candidate's (the shorter on a tie). */
  referenceLength: number;
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    // JSON keeps token boundaries unambiguous whatever the tokens contain.
    const key = JSON.stringify(tokens.slice(i, i + n));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Clipped matches and total candidate n-grams of order n (Papineni et al., section 2.1). */
export function modifiedPrecision(
  candidate: readonly string[],
  references: readonly (readonly string[])[],
  n: number,
): { matches: number; total: number } {
  const cand = ngramCounts(candidate, n);
  const maxRef = new Map<string, number>();
  for (const reference of references) {
    for (const [gram, count] of ngramCounts(reference, n)) {
      maxRef.set(gram, Math.max(maxRef.get(gram) ?? 0, count));
    }
  }
  let matches = 0;
  let total = 0;
  for (const [gram, count] of cand) {
    matches += Math.min(count, maxRef.get(gram) ?? 0);
    total += count;
  }
  return { matches, total };
}

export function bleu(
  candidate: readonly string[],
  references: readonly (readonly string[])[],
  options: BleuOptions = {},
): BleuResult {
  const maxOrder = options.maxOrder ?? 4;
  const smoothing = options.smoothing ?? "none";
  if (references.length === 0) throw new RangeError("bleu needs at least one reference");
  const c = candidate.length;
  let r = references[0]!.length;
  for (const reference of references) {
    const d = Math.abs(reference.length - c);
    const best = Math.abs(r - c);
    if (d < best || (d === best && reference.length < r)) r = reference.length;
  }
  const brevityPenalty = c === 0 ? 0 : c > r ? 1 : Math.exp(1 - r / c);

  const precisions: number[] = [];
  const logs: number[] = [];
  let zeroOrders = 0;
  for (let n = 1; n <= maxOrder; n++) {
    const { matches, total } = modifiedPrecision(candidate, references, n);
    precisions.push(total === 0 ? Number.NaN : matches / total);
    if (smoothing === "none") {
      logs.push(matches === 0 ? Number.NEGATIVE_INFINITY : Math.log(matches / total));
    } else if (total > 0) {
      if (matches > 0) logs.push(Math.log(matches / total));
      else {
        zeroOrders++;
        logs.push(Math.log(1 / (2 ** zeroOrders * total)));
      }
    }
  }
  const meanLog =
    logs.length === 0 ? Number.NEGATIVE_INFINITY : logs.reduce((a, b) => a + b, 0) / logs.length;
  const score = c === 0 || meanLog === Number.NEGATIVE_INFINITY ? 0 : brevityPenalty * Math.exp(meanLog);
  return { bleu: score, precisions, brevityPenalty, candidateLength: c, referenceLength: r };
}
