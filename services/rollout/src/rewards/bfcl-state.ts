// `bfcl_state` and `task_completion`: BFCL multi-turn's state check. After each user turn, the
// trajectory's environment state must equal the state produced by executing that turn's ground-truth
// calls (and the previous turns') on a fresh instance: the ground-truth replay of bfcl-replay.ts, shared
// with `bfcl_response`. Deep equality of the snapshots is the check (BFCL compares the environment's
// public attributes, which is what its environment server snapshots). As in BFCL's multi_turn_checker,
// a user turn whose ground truth is empty (the model should not act) has no state check: it passes once
// reached.
//   - `bfcl_state`: 1 when every user turn of the task was reached and passed, else 0 (with
//     `bfcl_response`: BFCL's multi-turn accuracy);
//   - `task_completion`: the fraction of the task's user turns whose state check passed (a turn the
//     trajectory never reached fails).
import { z } from "zod";
import { replayShape, sharedReplay } from "./bfcl-replay.ts";
import { componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const bfclStateSchema = z.strictObject({ type: z.literal("bfcl_state"), ...replayShape });
export const taskCompletionSchema = z.strictObject({ type: z.literal("task_completion"), ...replayShape });
type StateCheckConfig = z.infer<typeof bfclStateSchema> | z.infer<typeof taskCompletionSchema>;

function create(config: StateCheckConfig, all: boolean): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    async score({ task, trajectory }, ctx) {
      const turns = await sharedReplay(task, trajectory, ctx, config.deadline_ms, name);
      const passed = turns.map((t) => t.reached && (t.calls === 0 || t.stateMatches));
      const count = passed.filter(Boolean).length;
      const detail = `${count} of ${passed.length} user turns matched the ground truth's state`;
      if (all) return { value: count === passed.length ? 1 : 0, detail };
      return { value: count / passed.length, detail };
    },
  };
}

export const bfclStateComponent = defineRewardComponent({
  schema: bfclStateSchema,
  range: [0, 1],
  create: (config) => create(config, true),
});

export const taskCompletionComponent = defineRewardComponent({
  schema: taskCompletionSchema,
  range: [0, 1],
  create: (config) => create(config, false),
});
