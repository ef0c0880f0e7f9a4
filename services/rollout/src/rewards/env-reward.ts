// `env_reward`: the environment's own reward, read from the final snapshot of the rollout's episode
// (the last entry of `metadata.environment.snapshots`, docs/trajectory.md). An OpenEnv environment
// (`rlf env openenv`) keeps the sum of its step rewards at `reward` in its snapshot; any environment
// whose state holds a number can be scored the same way with `path`.
//   path   JSON path of the number in the final state (default `$.reward`); a boolean counts 1/0.
// No final snapshot, one stored truncated, or no number at `path`: a RewardConfigError, never 0. A
// snapshot stored as a diff (over rollout.max_snapshot_bytes) is rebuilt first, as for state_match.
import { z } from "zod";
import { RewardConfigError } from "./errors.ts";
import { parseJsonPath } from "./state-match.ts";
import { finalStoredSnapshot, freshInitialState, rebuiltState } from "./stored-state.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const envRewardSchema = z.strictObject({
  type: z.literal("env_reward"),
  ...componentBaseShape,
  path: z.string().min(1).default("$.reward"),
});
export type EnvRewardConfig = z.infer<typeof envRewardSchema>;

export function createEnvReward(config: EnvRewardConfig): RewardComponent {
  const name = componentName(config);
  const path = parseJsonPath(config.path); // a malformed path fails at load time
  return {
    name,
    weight: config.weight,
    score: async ({ task, trajectory }, ctx) => {
      // a snapshot stored as a diff is rebuilt against the episode's initial state, as state_match does
      let value: unknown = await rebuiltState(
        finalStoredSnapshot(trajectory, name),
        freshInitialState(task, ctx, name),
        name,
      );
      for (const seg of path)
        value =
          value !== null && typeof value === "object" && Object.hasOwn(value, seg)
            ? (value as Record<string | number, unknown>)[seg]
            : undefined;
      if (typeof value === "boolean") return { value: value ? 1 : 0 };
      if (typeof value !== "number" || !Number.isFinite(value))
        throw new RewardConfigError(
          name,
          "NO_ENV_REWARD",
          `the final environment state has no number at ${config.path}`,
        );
      return { value: value + 0 /* no -0 */ };
    },
  };
}

/** The environment's reward is its own: any finite number. */
export const envRewardComponent = defineRewardComponent({
  schema: envRewardSchema,
  range: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  create: createEnvReward,
});
