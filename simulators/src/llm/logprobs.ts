// Simulated per-token logprobs: one per output id, finite, ≤ 0, a pure function of (seed, request,
// position). Shaped like a sampled token's logprob under the model's own distribution: greedy decoding
// picks near-certain tokens (≈ -0.001); at temperature T most tokens stay confident (exponential with
// mean 0.15·T) and a share min(0.3, 0.08·T) are surprising picks (-0.7 … -0.7 - 3T).
// Those values are `processed` logprobs (of the distribution sampled from, after temperature). `raw`
// ones (vLLM's default `--logprobs-mode raw_logprobs`: log_softmax of the logits, temperature 1) come
// from them by `rawFromProcessed`.
import { unit } from "@rlfactory/kit";

export interface LogprobModel {
  seed: number;
  /** Identifies the request (hash of prompt and sampling parameters). */
  requestKey: number;
  /** 0 for greedy decoding. */
  temperature: number;
}

const FLOOR = -30;

export function sampledLogprob(model: LogprobModel, position: number): number {
  const u1 = unit("lp", model.seed, model.requestKey, position, 1);
  const u2 = unit("lp", model.seed, model.requestKey, position, 2);
  const t = model.temperature;
  if (t === 0) return -(1e-4 + 2e-3 * u1);
  const surprising = u1 < Math.min(0.3, 0.08 * t);
  const lp = surprising ? -(0.7 + 3 * t * u2) : -(1e-5 + 0.15 * t * -Math.log1p(-u2));
  return Math.max(FLOOR, lp);
}

/** What the server returns: `processed` (after temperature) or `raw` (temperature 1). */
export type SimLogprobsMode = "raw" | "processed";

export function sampledLogprobs(
  model: LogprobModel,
  count: number,
  mode: SimLogprobsMode = "processed",
): number[] {
  return Array.from({ length: count }, (_, i) => {
    const lp = sampledLogprob(model, i);
    return mode === "raw" ? rawFromProcessed(lp, model.temperature) : lp;
  });
}

/**
 * The temperature-1 logprob of a token whose logprob at temperature T is `processed`, in a two-way
 * model (the token against the rest of the vocabulary, one logit each): p_T = σ(d / T) gives the logit
 * gap d = T·logit(p_T), and the raw logprob is log σ(d). Equal at T = 1; below the processed value for
 * T < 1 (sharpening raised the sampled token's probability), above it for T > 1. Greedy (T = 0) is left
 * as is.
 */
export function rawFromProcessed(processed: number, temperature: number): number {
  if (temperature === 0 || temperature === 1) return processed;
  const p = Math.exp(processed);
  if (p >= 1) return processed;
  const gap = temperature * (processed - Math.log1p(-p));
  const raw = -Math.log1p(Math.exp(-gap)); // log σ(gap)
  return Math.max(FLOOR, Math.min(0, raw));
}

/**
 * `k` alternatives to the sampled token at one position: distinct ids (never the sampled one) sharing the
 * probability mass the sampled token leaves, halving each time, so the sum of probabilities stays ≤ 1.
 * Logprobs are floored at -9999 as vLLM does for -inf.
 */
export function alternatives(
  model: LogprobModel,
  position: number,
  sampled: { id: number; logprob: number },
  k: number,
  idRange: number,
): { id: number; logprob: number }[] {
  const rest = Math.max(0, -Math.expm1(sampled.logprob));
  const out: { id: number; logprob: number }[] = [];
  const seen = new Set([sampled.id]);
  for (let j = 0; out.length < k && j < k * 4 + 8; j++) {
    const id = Math.floor(unit("alt", model.seed, model.requestKey, position, j) * idRange);
    if (seen.has(id)) continue;
    seen.add(id);
    const p = rest * 0.5 ** (out.length + 1);
    out.push({ id, logprob: p > 0 ? Math.max(-9999, Math.log(p)) : -9999 });
  }
  return out;
}
