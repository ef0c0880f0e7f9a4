// The one rule every token-in/token-out answer must pass before a trainer may use it: exactly one
// logprob per sampled id, each a finite number ≤ 0 (JSON cannot carry -inf/NaN: engines send null).
import { InferenceError } from "./types.ts";

/** Returns the logprobs as numbers, or throws BAD_RESPONSE naming the first problem and `where`. */
export function checkTokenLogprobs(
  ids: readonly number[],
  logprobs: readonly (number | null)[],
  where: string,
): number[] {
  if (ids.length !== logprobs.length) {
    throw new InferenceError(
      "BAD_RESPONSE",
      `${where} returned ${ids.length} token ids but ${logprobs.length} logprobs; they must align one to one`,
    );
  }
  const out: number[] = new Array(logprobs.length);
  for (let i = 0; i < logprobs.length; i++) {
    const lp = logprobs[i];
    if (typeof lp !== "number" || !Number.isFinite(lp) || lp > 0) {
      throw new InferenceError(
        "BAD_RESPONSE",
        `${where} returned logprob ${JSON.stringify(lp ?? null)} for token ${i} (id ${ids[i]}); ` +
          "each logprob must be a finite number ≤ 0",
      );
    }
    out[i] = lp;
  }
  return out;
}
