// generate: the sampler continues prompt + response ids, with the same sampling params on every turn
// (max_tokens lowered to the room the context budget leaves; the format's stop strings added; seed +
// turn), and its ids + logprobs are appended as they came (loss mask 1, never re-tokenized).
import { policyVersionFromText } from "@rlfactory/contracts";
import { type FinishReason, InferenceError, type SamplingParams } from "../inference/types.ts";
import { CANCELLED, ended, type LoopEnd } from "./loop-outcome.ts";
import { inPhaseSpan } from "./phase-span.ts";
import type { TrajectoryState } from "./trajectory-state.ts";

/** A sampled turn, appended to the record. */
export interface Sample {
  /** 0-based index among the trajectory's sampled turns (its generate requests). */
  turn: number;
  ids: readonly number[];
  finishReason: FinishReason;
  /** The max_tokens it was sampled with. */
  maxTokens: number;
}

/** The sampling params of turn `turn`. */
export function turnSampling(state: TrajectoryState, turn: number): SamplingParams {
  const { deps, run } = state;
  const room = deps.limits.maxContextTokens - state.context.length;
  return {
    ...deps.sampling,
    max_tokens: Math.min(deps.sampling.max_tokens, room),
    stop: [...new Set([...deps.sampling.stop, ...deps.format.stopSequences])],
    ...(run.seed === undefined ? {} : { seed: run.seed + turn }),
  };
}

/** Samples turn `turn` and appends it; the end when the sampler failed, was cancelled or aborted. */
export async function generatePhase(
  state: TrajectoryState,
  turn: number,
): Promise<{ kind: "sampled"; sample: Sample } | LoopEnd> {
  const { deps, run, builder } = state;
  const sampling = turnSampling(state, turn);
  const started = performance.now();
  let gen: Awaited<ReturnType<typeof deps.sampler.generate>>;
  try {
    gen = await inPhaseSpan("generate", () =>
      deps.sampler.generate({
        promptIds: state.context,
        ...(state.contextImages.length === 0 ? {} : { images: state.contextImages }),
        sampling,
        sessionId: run.trajectoryId,
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      }),
    );
  } catch (e) {
    builder.addTiming("generate_ms", performance.now() - started);
    if (state.cancelled(e)) return CANCELLED;
    const code = e instanceof InferenceError ? e.code : "ERROR";
    return ended("failed", `inference ${code}: ${(e as Error).message}`);
  }
  builder.addTiming("generate_ms", performance.now() - started);
  if (gen.ids.length === 0) {
    return ended("failed", `inference returned no tokens (finish_reason ${gen.finishReason})`);
  }
  builder.appendSampled(gen.ids, gen.logprobs, {
    // SGLang reports text; a step number ("12") is recorded as the number, like the request's
    policyVersion:
      typeof gen.weightVersion === "string" ? policyVersionFromText(gen.weightVersion) : gen.weightVersion,
  });
  state.context.push(...gen.ids);
  if (gen.finishReason === "abort") return ended("aborted", "the inference engine aborted the request");
  return {
    kind: "sampled",
    sample: { turn, ids: gen.ids, finishReason: gen.finishReason, maxTokens: sampling.max_tokens },
  };
}
