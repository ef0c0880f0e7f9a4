// The API's answers about one run directory, shared by the console server (GET /api/runs/RUN and
// GET /api/runs/RUN/trajectories/N) and the static export (report.html inlines the same answers).
import type { Trajectory } from "@rlfactory/contracts";
import { runCurves } from "@rlfactory/rollout";
import type { RunCurves, TrajectoryListing } from "./api-types.ts";
import { listTrajectories } from "./run-directories.ts";
import { tokenTexts } from "./token-texts.ts";
import { environmentView, groupSiblings, traceLink } from "./trajectory-detail.ts";

export interface RunResponse {
  id: string;
  summary: unknown;
  /** No summary.json yet: `rlf rollout` is still appending groups to trajectories.jsonl. */
  in_progress: boolean;
  trajectories: TrajectoryListing[];
  curves: RunCurves;
}

export function runResponse(
  id: string,
  summary: unknown,
  trajectories: readonly Trajectory[] | undefined,
): RunResponse {
  return {
    id,
    summary,
    in_progress: summary === null,
    trajectories: trajectories ? listTrajectories(trajectories) : [],
    curves: runCurves(trajectories ?? []),
  };
}

/**
 * Trajectory `index` with each token's text, decoded with the run's tokenizer (summary.json's
 * config), its GRPO group's siblings among `all`, its environment's snapshots and its trace link.
 */
export async function trajectoryResponse(
  run: string,
  index: number,
  t: Trajectory,
  summary: unknown,
  all: readonly Trajectory[],
  jaeger: string | undefined,
) {
  const texts = await tokenTexts(summary, { prompt: t.prompt_ids, response: t.response_ids });
  return {
    run,
    index,
    trajectory: t,
    token_texts: texts.texts,
    token_texts_error: texts.error,
    siblings: groupSiblings(all, t),
    environment: environmentView(t),
    trace: traceLink(t, run, index, jaeger),
  };
}
