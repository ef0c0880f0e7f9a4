// Every way a trajectory ends `truncated`, in one place: the prompt alone does not fit, generation was
// cut by the room the context budget left, the last allowed turn was used, or the next appended
// tokens (an observation, a user turn) would pass the budget. The question is never cut.
import type { FinishReason } from "../inference/types.ts";
import type { LoopLimits } from "./loop-deps.ts";
import { ended, type LoopEnd } from "./loop-outcome.ts";

/** The prompt alone reaches the context budget: nothing is generated. */
export function promptTooLong(promptLength: number, limits: LoopLimits): LoopEnd | undefined {
  if (promptLength < limits.maxContextTokens) return undefined;
  return ended(
    "truncated",
    `prompt is ${promptLength} tokens, the context budget is ${limits.maxContextTokens}`,
  );
}

/**
 * A turn without an answer stopped at `length` under a cap the context budget set (lower than
 * `sampling.max_tokens`): the budget is spent. A turn cut by the per-turn cap itself is not truncation.
 */
export function cutWhileGenerating(
  sample: { finishReason: FinishReason; maxTokens: number },
  answer: string | undefined,
  samplingMaxTokens: number,
  limits: LoopLimits,
): LoopEnd | undefined {
  if (answer !== undefined || sample.finishReason !== "length" || sample.maxTokens >= samplingMaxTokens) {
    return undefined;
  }
  return ended("truncated", `context budget of ${limits.maxContextTokens} tokens reached while generating`);
}

/** Turn `turn` (0-based) was the last sampled turn `max_turns` allows and the trajectory would go on. */
export function maxTurnsReached(turn: number, limits: LoopLimits): LoopEnd | undefined {
  if (turn + 1 < limits.maxTurns) return undefined;
  return ended("truncated", `max_turns (${limits.maxTurns}) reached`);
}

/** Appending `more` tokens to a context of `length` would reach the budget; `needs`: what needs them. */
export function overContextBudget(
  length: number,
  more: number,
  limits: LoopLimits,
  needs: string,
): LoopEnd | undefined {
  if (length + more < limits.maxContextTokens) return undefined;
  return ended(
    "truncated",
    `context budget of ${limits.maxContextTokens} tokens reached: ${needs} ${more} more`,
  );
}
