// How long a simulated request takes. Either length-based (time to first token + tokens at a fixed
// rate) or, with `turnMs`, uniform in [min, max] whatever the length (the rollout benchmark's model of a
// turn). A heavy tail on top: with probability `tailProb` the whole request takes `tailMult`× as long.
// Draws come from a seeded stream in arrival order; the server waits on timers, never blocking.
import { z } from "zod";

export const latencyOptionsSchema = z
  .object({
    ttftMs: z.number().min(0).default(0),
    /** 0: instant. */
    tokensPerS: z.number().min(0).default(0),
    tailProb: z.number().min(0).max(1).default(0),
    tailMult: z.number().min(1).default(1),
    /** [min, max] ms per request, replacing ttftMs/tokensPerS. */
    turnMs: z
      .tuple([z.number().min(0), z.number().min(0)])
      .refine(([min, max]) => min <= max, "turnMs: min must be ≤ max")
      .optional(),
  })
  .strict();
export type LatencyOptions = z.output<typeof latencyOptionsSchema>;
export type LatencyOptionsInput = z.input<typeof latencyOptionsSchema>;

/** Milliseconds one request takes; `random` is the server's latency stream (two draws per request). */
export function requestDelayMs(
  latency: LatencyOptions,
  completionTokens: number,
  random: () => number,
): number {
  const spread = random();
  const tail = random() < latency.tailProb;
  const base =
    latency.turnMs !== undefined
      ? latency.turnMs[0] + (latency.turnMs[1] - latency.turnMs[0]) * spread
      : latency.ttftMs + (latency.tokensPerS > 0 ? (completionTokens / latency.tokensPerS) * 1000 : 0);
  return tail ? base * latency.tailMult : base;
}

/** `--turn-ms MIN-MAX` (or a single number) → [min, max]. */
export function parseTurnMs(text: string): [number, number] {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?))?\s*$/.exec(text);
  if (m === null) throw new Error(`--turn-ms must be MIN-MAX milliseconds (e.g. 200-800), got "${text}"`);
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (min > max) throw new Error(`--turn-ms: MIN (${min}) is greater than MAX (${max})`);
  return [min, max];
}
