// Optional per-turn process rewards: one value per entry of `trajectory.turns` (the trajectory's
// `turn_rewards`), 0 on observation turns. A sampled turn gets, summed over what it did:
//   tool_success        per call that returned a normal result,
//   tool_error          per call whose tool reported a failure, or that the gateway refused as the
//                       model's mistake (unknown tool, invalid arguments, ...),
//   tool_infra_failure  per call that failed for infrastructure reasons (timeout, unavailable, ...:
//                       not the model's fault, default 0),
//   malformed           once if the turn had malformed calls or no action (needs
//                       `RewardInput.sampledTurnMalformed`).
// They are reported beside the outcome reward, not added to it: the trainer decides how to use them.

import { INFRA_CALL_CODES } from "@rlfactory/contracts";
import { z } from "zod";
import { RewardConfigError } from "./errors.ts";
import type { RewardInput } from "./types.ts";

export const processRewardsSchema = z.strictObject({
  tool_success: z.number().finite().default(0),
  tool_error: z.number().finite().default(0),
  tool_infra_failure: z.number().finite().default(0),
  malformed: z.number().finite().default(0),
});
export type ProcessRewardsConfig = z.infer<typeof processRewardsSchema>;

const COMPONENT = "process";

/** Per-turn rewards aligned with `input.trajectory.turns`. Throws RewardConfigError when it cannot align. */
export function processTurnRewards(config: ProcessRewardsConfig, input: RewardInput): number[] {
  const { turns, tool_calls } = input.trajectory;
  const rewards = turns.map(() => 0);
  for (const [i, call] of tool_calls.entries()) {
    const value = !call.is_error
      ? config.tool_success
      : INFRA_CALL_CODES.has((call.error_code ?? "").toUpperCase())
        ? config.tool_infra_failure
        : config.tool_error;
    if (value === 0) continue;
    if (call.turn === undefined || turns[call.turn]?.kind !== "sampled") {
      throw new RewardConfigError(
        COMPONENT,
        "TURN_UNKNOWN",
        `tool_calls[${i}] (${call.name}) does not name the sampled turn that made it`,
      );
    }
    rewards[call.turn]! += value;
  }
  if (config.malformed !== 0 && input.malformedTurns > 0) {
    const flags = input.sampledTurnMalformed;
    const sampled = turns.flatMap((t, i) => (t.kind === "sampled" ? [i] : []));
    if (flags === undefined || flags.length !== sampled.length) {
      throw new RewardConfigError(
        COMPONENT,
        "MALFORMED_TURNS_UNKNOWN",
        `process.malformed needs sampledTurnMalformed with one flag per sampled turn (${sampled.length}), got ${flags?.length ?? "none"}`,
      );
    }
    flags.forEach((bad, k) => {
      if (bad) rewards[sampled[k]!]! += config.malformed;
    });
  }
  return rewards;
}
