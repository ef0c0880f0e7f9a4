// The reward config (parsed once, zod) and the composed reward function.
//
// Config: `{ components: [{ type, weight?, name?, ...params }], process?: {...} }`, or just the list.
//   total reward = Σ weight × value over the components; `reward_components` holds each unweighted value
//   by name (weight-0 components run and are reported too: EM beside an F1-trained reward).
//   turn rewards = the process rewards + Σ weight × per-turn value of the per-turn components.
// Components run concurrently. If any throws (an infrastructure failure, a config/data error, or a
// bug), the reward is null and `error` names the component and why; the others' values are still
// reported. Never a silent 0. README.md in this folder documents every component.

import type { RewardError, Trajectory } from "@rlfactory/contracts";
import { z } from "zod";
import { toRewardError } from "./errors.ts";
import { processRewardsSchema, processTurnRewards } from "./process-rewards.ts";
import { createRewardComponent, rewardComponentSchema } from "./reward-components.ts";
import { componentName, type RewardContext, type RewardInput } from "./types.ts";

export { type RewardComponentConfig, rewardComponentSchema } from "./reward-components.ts";

const rewardConfigObject = z
  .strictObject({
    components: z.array(rewardComponentSchema).min(1, "at least one reward component"),
    process: processRewardsSchema.optional(),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.components.forEach((entry, i) => {
      const name = componentName(entry);
      if (seen.has(name)) {
        ctx.addIssue({
          code: "custom",
          path: ["components", i, "name"],
          message: `component name "${name}" is used twice; give one a distinct \`name\``,
        });
      }
      seen.add(name);
    });
  });

/** The config object, or its bare component list. */
export const rewardConfigSchema = z.preprocess(
  (raw) => (Array.isArray(raw) ? { components: raw } : raw),
  rewardConfigObject,
);
export type RewardConfig = z.infer<typeof rewardConfigObject>;
export type RewardConfigInput = z.input<typeof rewardConfigObject> | z.input<typeof rewardComponentSchema>[];

/** Parses a reward config; throws an Error listing every problem with its path. */
export function parseRewardConfig(raw: unknown): RewardConfig {
  const parsed = rewardConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid reward config:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export interface RewardResult {
  /** Σ weight × component, or null when any component (or the process rewards) failed. */
  reward: number | null;
  /** Each component's unweighted value by name (those that produced one). */
  components: Record<string, number>;
  /** Why `reward` is null (the first failure in config order; the message lists the others). */
  error: RewardError | null;
  /** One-line notes by component name (why a 0, the judge's explanation). */
  details: Record<string, string>;
  /**
   * Per-turn rewards aligned with `trajectory.turns`, when `process` or a per-turn component
   * (`ftrl_solve`) is configured: the process rewards + Σ weight × each per-turn component's value.
   * Left out when scoring failed.
   */
  turnRewards?: number[];
}

export interface RewardFn {
  readonly config: RewardConfig;
  /** Component names in config order. */
  readonly names: readonly string[];
  score(input: RewardInput, ctx: RewardContext): Promise<RewardResult>;
}

/** Builds the reward function of a config (raw, e.g. from YAML, or already parsed). */
export function createRewardFn(config: RewardConfigInput | RewardConfig): RewardFn {
  const parsed = parseRewardConfig(config);
  const components = parsed.components.map(createRewardComponent);
  const processConfig = parsed.process;
  return {
    config: parsed,
    names: components.map((c) => c.name),
    async score(input, ctx) {
      const settled = await Promise.allSettled(
        components.map(async (c) => {
          const out = await c.score(input, ctx);
          if (!Number.isFinite(out.value)) throw new Error(`component returned ${out.value}`);
          const turns = input.trajectory.turns.length;
          if (out.turnValues !== undefined && out.turnValues.length !== turns) {
            throw new Error(`component returned ${out.turnValues.length} turn values for ${turns} turns`);
          }
          if (out.turnValues?.some((v) => !Number.isFinite(v)))
            throw new Error("component returned a non-finite turn value");
          return out;
        }),
      );
      const values: Record<string, number> = {};
      const details: Record<string, string> = {};
      const errors: RewardError[] = [];
      let total = 0;
      // per-turn components: Σ weight × value per turn, beside the process rewards
      let componentTurns: number[] | undefined;
      settled.forEach((s, i) => {
        const c = components[i]!;
        if (s.status === "rejected") {
          errors.push(toRewardError(c.name, s.reason));
          return;
        }
        if (s.value.detail !== undefined) details[c.name] = s.value.detail;
        // A judge whose fallback policy is "skip": out of the total and of the values, the reason in details.
        if (s.value.skipped === true) return;
        values[c.name] = s.value.value;
        total += c.weight * s.value.value;
        const perTurn = s.value.turnValues;
        if (perTurn !== undefined) {
          componentTurns ??= input.trajectory.turns.map(() => 0);
          perTurn.forEach((v, t) => {
            componentTurns![t]! += c.weight * v;
          });
        }
      });
      let turnRewards: number[] | undefined = componentTurns;
      if (processConfig !== undefined) {
        try {
          const process = processTurnRewards(processConfig, input);
          turnRewards = process.map((v, t) => v + (componentTurns?.[t] ?? 0));
        } catch (err) {
          errors.push(toRewardError("process", err));
          turnRewards = undefined;
        }
      }
      // a failed scoring records no partial per-turn rewards
      if (errors.length > 0) turnRewards = undefined;
      const first = errors[0];
      const error: RewardError | null =
        first === undefined
          ? null
          : errors.length === 1
            ? first
            : {
                ...first,
                message: `${first.message} (also failed: ${errors
                  .slice(1)
                  .map((e) => `${e.component} ${e.code}`)
                  .join(", ")})`,
              };
      return {
        reward: error === null ? total : null,
        components: values,
        error,
        details,
        ...(turnRewards !== undefined ? { turnRewards } : {}),
      };
    },
  };
}

/** The trajectory with the result's reward fields set (reward, components, error, turn rewards). */
export function applyRewardResult(trajectory: Trajectory, result: RewardResult): Trajectory {
  const out: Trajectory = {
    ...trajectory,
    reward: result.reward,
    reward_components: { ...result.components },
    reward_error: result.error,
  };
  if (result.turnRewards !== undefined) out.turn_rewards = [...result.turnRewards];
  return out;
}
