// see: the turn's tool results as observations, each result's images decided before the observation
// is rendered (vision/image-observation.ts): placeholder tokens within `vision.max_images` for a
// vision-language template, downscaled or dropped past it, a text note otherwise. Images are counted
// in the turn's order, after the ones already in the context.
import type { ToolOutcome } from "../gateway-tools.ts";
import type { ToolCallRequest } from "../parsers/types.ts";
import { planImages } from "../vision/image-observation.ts";
import type { Observed } from "./observe-phase.ts";
import type { TrajectoryState } from "./trajectory-state.ts";

/** The tool results (any order) as `tool` observations in the turn's order, their images decided. */
export async function seePhase(
  state: TrajectoryState,
  results: readonly { call: ToolCallRequest; outcome: ToolOutcome }[],
): Promise<Observed[]> {
  let shownBefore = state.contextImages.filter((i) => i.shown === "full").length;
  const out: Observed[] = [];
  for (const { call, outcome } of [...results].sort((a, b) => a.call.index - b.call.index)) {
    const images =
      outcome.images === undefined
        ? undefined
        : await planImages(outcome.images, state.deps.vision, shownBefore);
    shownBefore += images?.filter((i) => i.shown === "full").length ?? 0;
    out.push({ kind: "tool", index: call.index, call, outcome, ...(images === undefined ? {} : { images }) });
  }
  return out;
}
