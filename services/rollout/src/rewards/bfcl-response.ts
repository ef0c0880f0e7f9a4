// `bfcl_response`: BFCL multi-turn's response check (bfcl-eval's `response_checker`). For each user
// turn k with ground-truth calls, the result texts of those calls (from the ground-truth replay shared
// with `bfcl_state`, bfcl-replay.ts) must all be found among the results of the model's calls of user
// turns 0..k — unordered, each model result used at most once (BFCL's `_is_subsequence_unordered`:
// a multiset inclusion; results of earlier turns count, as the model may have fetched something
// already). As in BFCL's multi_turn_checker, such a turn also fails when the model made no call in it
// (`empty_turn_model_response`), and a user turn without ground-truth calls is not checked.
// 1 when every checked user turn passed (and was reached), else 0; with `bfcl_state`, BFCL's
// multi-turn accuracy.
//
// The model's results are the trajectory's `tool_calls[*].result` (the text the gateway answered, as
// the model saw it, before any token-budget cut); a call's user turn comes from its `turn` and
// `metadata.user_turns` (docs/trajectory.md). Malformed calls (`MALFORMED_*`, never executed) are not
// calls; a call the infrastructure failed (TIMEOUT, UNAVAILABLE, ...) makes the reward null with a
// reward_error, as its result is unknown. Both sides are the gateway's text for the same environment,
// so equal calls give equal texts (test/rollout/bfcl-checker-parity.e2e.test.ts: equal exactly when
// bfcl-eval's own texts are, but for whole floats, which JSON reads as integers).

import type { Trajectory } from "@rlfactory/contracts";
import { INFRA_CALL_CODES, MALFORMED_CODE_PREFIX, serviceCallCode } from "@rlfactory/contracts";
import { z } from "zod";
import { replayShape, sharedReplay } from "./bfcl-replay.ts";
import { oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import { componentName, defineRewardComponent } from "./types.ts";

export const bfclResponseSchema = z.strictObject({ type: z.literal("bfcl_response"), ...replayShape });

/** The result texts of the model's calls, per user turn (`count` user turns; calls past them go to the last). */
export function modelResultsPerUserTurn(
  trajectory: Trajectory,
  count: number,
  component: string,
): string[][] {
  const userTurns = (trajectory.metadata?.user_turns ?? []) as { turn?: number | null }[];
  // user turn k starts after the observation turn holding its message (the prompt's: before any turn)
  const starts = userTurns.map((u) => (typeof u.turn === "number" ? u.turn : -1));
  const out: string[][] = Array.from({ length: count }, () => []);
  for (const [i, call] of trajectory.tool_calls.entries()) {
    if (call.error_code?.startsWith(MALFORMED_CODE_PREFIX)) continue;
    if (call.error_code !== null && INFRA_CALL_CODES.has(call.error_code)) {
      throw new RewardInfraError(
        component,
        serviceCallCode(call.error_code),
        `the call to ${call.name} failed for the infrastructure (${call.error_code}), not for the model: its result is unknown`,
      );
    }
    let k = 0;
    if (starts.length > 1) {
      if (call.turn === undefined) {
        throw new RewardConfigError(
          component,
          "NO_CALL_TURN",
          `tool_calls[${i}] has no turn: its user turn is unknown`,
        );
      }
      for (let j = 0; j < starts.length; j++) if (starts[j]! < call.turn) k = j;
    }
    out[Math.min(k, count - 1)]!.push(call.result);
  }
  return out;
}

/** The items of `wanted` not found in `have`, each item of `have` used once (BFCL's `_is_subsequence_unordered`). */
export function missingUnordered(wanted: readonly string[], have: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const h of have) left.set(h, (left.get(h) ?? 0) + 1);
  const missing: string[] = [];
  for (const w of wanted) {
    const n = left.get(w) ?? 0;
    if (n > 0) left.set(w, n - 1);
    else missing.push(w);
  }
  return missing;
}

export const bfclResponseComponent = defineRewardComponent({
  schema: bfclResponseSchema,
  range: [0, 1],
  create: (config) => {
    const name = componentName(config);
    return {
      name,
      weight: config.weight,
      async score({ task, trajectory }, ctx) {
        const turns = await sharedReplay(task, trajectory, ctx, config.deadline_ms, name);
        const model = modelResultsPerUserTurn(trajectory, turns.length, name);
        const soFar: string[] = [];
        let checked = 0;
        let passed = 0;
        let why: string | undefined;
        turns.forEach((turn, k) => {
          soFar.push(...model[k]!);
          if (turn.calls === 0) return;
          checked++;
          let failure: string | undefined;
          if (!turn.reached) failure = `user turn ${k} was not reached`;
          else if (model[k]!.length === 0) failure = `no call in user turn ${k}`;
          else {
            const missing = missingUnordered(turn.results, soFar);
            if (missing.length > 0)
              failure = `user turn ${k}: ${missing.length} ground-truth result(s) missing, e.g. ${JSON.stringify(oneLine(missing[0]!, 120))}`;
          }
          if (failure === undefined) passed++;
          else why ??= failure;
        });
        const detail = `${passed} of ${checked} user turns had the ground truth's results${why === undefined ? "" : ` (${why})`}`;
        return { value: passed === checked ? 1 : 0, detail };
      },
    };
  },
});
