// finish: the trajectory's episode (if any) is opened before the first turn and ended on every exit,
// its final state stored as the last snapshot (an end that fails fails a trajectory that would
// otherwise be scored); then the total time and the status go on the record.
import { boundedSnapshot, episodeFailureReason } from "./episodes.ts";
import { ended, type LoopEnd } from "./loop-outcome.ts";
import type { LoopResult, TrajectoryState } from "./trajectory-state.ts";

/** Opens this sample's episode (`run.episode`); the end of the trajectory when it cannot. */
export async function openEpisode(state: TrajectoryState): Promise<LoopEnd | undefined> {
  if (state.run.episode === undefined) return undefined;
  try {
    state.episodeId = await state.run.episode();
    state.initialState = await state.run.initialState?.();
    return undefined;
  } catch (e) {
    return ended("failed", episodeFailureReason(e));
  }
}

/** Ends the episode, then the record, with the loop's end (or the episode's failure). */
export async function finishPhase(state: TrajectoryState, end: LoopEnd): Promise<LoopResult> {
  const { deps, builder, result } = state;
  let { status, reason } = end;
  if (state.episodeId !== undefined && deps.episodes !== undefined) {
    const id = state.episodeId;
    state.episodeId = undefined;
    try {
      const final = await deps.episodes.end(id);
      state.environment?.snapshots.push(
        boundedSnapshot(state.userTurns.length - 1, final, state.maxSnapshotBytes, true, state.initialState),
      );
    } catch (e) {
      // the final state is part of the record: without it a finished trajectory cannot be scored
      if (status !== "failed" && status !== "aborted")
        ({ status, reason } = ended("failed", episodeFailureReason(e)));
    }
  }
  result.status = status;
  result.statusReason = reason;
  builder.addTiming("total_ms", performance.now() - state.started);
  builder.finish(status, reason);
  return result;
}
