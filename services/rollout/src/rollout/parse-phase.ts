// parse: the sampled turn's text through the format's codec, then what the turn asks for. A turn with
// an answer or with neither calls nor malformed calls ends the model's turn (a later user message may
// follow: user-turn-phase.ts); otherwise, and when no user message is left, the single-turn rules:
// an answer completes, a cut by the context budget truncates, no action ends or is nudged
// (`rollout.on_no_action`), the last allowed turn truncates, and the calls go on to be invoked.

import { malformedCall } from "../parsers/malformed.ts";
import type { MalformedCall, ParsedTurn, ToolCallRequest } from "../parsers/types.ts";
import type { Sample } from "./generate-phase.ts";
import { ended, type LoopEnd } from "./loop-outcome.ts";
import type { TrajectoryState } from "./trajectory-state.ts";
import { cutWhileGenerating, maxTurnsReached } from "./truncation.ts";

/** The observation for a turn with neither a tool call nor an answer (`rollout.on_no_action: nudge`). */
export const NO_ACTION_MESSAGE =
  "The previous turn neither called a tool nor gave an answer. Call a tool, or give the final answer inside <answer> and </answer>.";

/** A sampled turn, decoded and parsed. */
export interface ParsedSample {
  text: string;
  parsed: ParsedTurn;
  /** An answer, or no call attempt at all: the model's turn is over (a user message may come next). */
  endsModelTurn: boolean;
}

/** What the tools are asked for: the calls to invoke and the malformed attempts to answer. */
export interface TurnAction {
  kind: "act";
  calls: readonly ToolCallRequest[];
  malformed: readonly MalformedCall[];
}

/** Decodes the turn (special tokens skipped) for the rewards and parses it with the format. */
export function parsePhase(state: TrajectoryState, sample: Sample): ParsedSample {
  const text = state.deps.tokenizer.decode(sample.ids, { skipSpecialTokens: true });
  state.result.sampledTexts.push(text);
  const parsed = state.deps.format.parse(text);
  const endsModelTurn =
    parsed.answer !== undefined || (parsed.calls.length === 0 && parsed.malformed.length === 0);
  return { text, parsed, endsModelTurn };
}

/** The single-turn rules: the end of the trajectory, or the calls and malformed attempts to answer. */
export function turnAction(
  state: TrajectoryState,
  sample: Sample,
  { text, parsed }: ParsedSample,
): TurnAction | LoopEnd {
  const { limits } = state.deps;
  const noAction = parsed.calls.length === 0 && parsed.malformed.length === 0;
  state.countSampledTurn(
    parsed.malformed.length > 0 || (parsed.calls.length === 0 && parsed.answer === undefined),
  );
  if (parsed.answer !== undefined) {
    state.result.answer = parsed.answer;
    return ended("completed", "answer");
  }
  const cut = cutWhileGenerating(sample, parsed.answer, state.deps.sampling.max_tokens, limits);
  if (cut !== undefined) return cut;
  let malformed: readonly MalformedCall[] = parsed.malformed;
  if (noAction) {
    if (limits.onNoAction === "end") {
      return ended("completed", sample.finishReason === "length" ? "no_action_length" : "no_action");
    }
    // `nudge`: tell the model, as an observation, that the turn did nothing, and sample again.
    malformed = [malformedCall("UNKNOWN_ACTION", NO_ACTION_MESSAGE, text, 0)];
  }
  return maxTurnsReached(sample.turn, limits) ?? { kind: "act", calls: parsed.calls, malformed };
}
