// One request's life, shared by the gRPC and HTTP front ends: run the engine, hand each group to the
// transport as it completes, keep draining after an abort so the engine can end its in-flight
// trajectories as `aborted` instead of being cut off mid-await, and log one line with the outcome
// (with the mean turn reward per sampled turn over the trajectories sent, when they carry any).
import type { Logger } from "pino";
import type { RolloutEngine, TrajectoryGroup } from "../rollout/rollout-engine.ts";
import { turnRewardMeans } from "../turn-rewards.ts";
import type { PolicyVersionState } from "./policy-version.ts";
import type { ParsedRolloutRequest } from "./rollout-request.ts";
import type { RunTracker } from "./run-tracker.ts";

export interface RolloutRun {
  engine: RolloutEngine;
  request: ParsedRolloutRequest;
  /** The trainer's current version: the default policy_version, and the staleness rule for each group. */
  versions: PolicyVersionState;
  /** The caller is gone (cancelled, deadline passed, disconnected): abort, and send nothing more. */
  callerGone: AbortSignal;
  /** Abort but keep sending: the caller still gets the groups, their in-flight trajectories `aborted`. */
  stop: AbortSignal;
  /** Hands one group to the transport; may wait for it to drain. */
  send: (group: TrajectoryGroup) => Promise<void> | void;
  log: Logger;
  /** The RPC or route, for the log line. */
  via: string;
  /** Records the request as a run (GET /v1/runs) while it runs and after. */
  tracker?: RunTracker;
}

export interface RolloutOutcome {
  /** Groups the engine produced. */
  groups: number;
  /** Groups handed to the transport (fewer when the caller went away). */
  sent: number;
  /** The engine was asked to abort (caller gone, transport failed, or service stopping). */
  aborted: boolean;
}

/**
 * Runs the request, sending each group as it completes. A failing `send` aborts the rest of the
 * request too and is rethrown once the engine has wound down; an engine failure is rethrown as is.
 */
export async function runRollout(run: RolloutRun): Promise<RolloutOutcome> {
  const { engine, request, versions, callerGone, stop, send, log, via } = run;
  const current = versions.current;
  const options = {
    ...request.options,
    ...(request.options.policyVersion === undefined && current !== null ? { policyVersion: current } : {}),
  };
  const started = performance.now();
  const sendFailed = new AbortController();
  const noMoreSends = AbortSignal.any([callerGone, sendFailed.signal]);
  const engineSignal = AbortSignal.any([noMoreSends, stop]);
  let groups = 0;
  let sent = 0;
  let failure: { error: unknown } | undefined;
  const turnRewards = new TurnRewardTally();
  const tracked = run.tracker?.start(via, request.tasks.length, options.policyVersion ?? null);
  try {
    for await (const group of engine.rollout(request.tasks, { ...options, signal: engineSignal })) {
      groups += 1;
      if (noMoreSends.aborted) continue;
      try {
        const applied = versions.apply(group);
        await send(applied);
        sent += 1;
        turnRewards.add(applied);
        tracked?.group(applied.trajectories);
      } catch (error) {
        if (callerGone.aborted) continue; // the caller left while we were sending: not a failure
        failure = { error };
        sendFailed.abort(error);
      }
    }
    if (failure) throw failure.error;
  } catch (err) {
    tracked?.end("failed");
    log.error({ err, via, tasks: request.tasks.length, groups, sent }, "rollout failed");
    throw err;
  }
  const outcome = { groups, sent, aborted: engineSignal.aborted };
  tracked?.end(outcome.aborted ? "aborted" : "done");
  const ms = Math.round(performance.now() - started);
  const turnRewardMean = turnRewards.means();
  log.info(
    {
      via,
      tasks: request.tasks.length,
      ...outcome,
      ms,
      ...(turnRewardMean === null ? {} : { turn_reward_mean: turnRewardMean }),
    },
    outcome.aborted ? "rollout aborted" : "rollout done",
  );
  return outcome;
}

/** The mean turn reward per sampled-turn index over the trajectories of the groups added. */
class TurnRewardTally {
  readonly #sums: number[] = [];
  readonly #counts: number[] = [];

  add(group: TrajectoryGroup): void {
    turnRewardMeans(group.trajectories)?.forEach((m, k) => {
      this.#sums[k] = (this.#sums[k] ?? 0) + m.mean * m.count;
      this.#counts[k] = (this.#counts[k] ?? 0) + m.count;
    });
  }

  /** Null when no trajectory carried `turn_rewards`. */
  means(): number[] | null {
    return this.#sums.length === 0 ? null : this.#sums.map((s, k) => s / this.#counts[k]!);
  }
}
