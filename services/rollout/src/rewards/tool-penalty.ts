// `tool_call_penalty`: a negative value when the rollout made more than `max_calls` tool calls
// (every entry of `trajectory.tool_calls` counts, failed ones included).
//   - mode `flat`:     −penalty once, whatever the excess (RL-Factory's search env: −0.1 past 2 calls);
//   - mode `per_call`: −penalty × (calls − max_calls).
// `penalty` is a magnitude (≥ 0); the component's value is ≤ 0. RL-Factory's setting is
// `{ type: tool_call_penalty, weight: 1, max_calls: 2, penalty: 0.1, mode: flat }` (the defaults).
import { z } from "zod";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const toolPenaltySchema = z.strictObject({
  type: z.literal("tool_call_penalty"),
  ...componentBaseShape,
  max_calls: z.number().int().min(0).default(2),
  penalty: z.number().finite().min(0).default(0.1),
  mode: z.enum(["flat", "per_call"]).default("flat"),
});
export type ToolPenaltyConfig = z.infer<typeof toolPenaltySchema>;

export function createToolPenalty(config: ToolPenaltyConfig): RewardComponent {
  return {
    name: componentName(config),
    weight: config.weight,
    score: ({ trajectory }) => {
      const calls = trajectory.tool_calls.length;
      const extra = calls - config.max_calls;
      if (extra <= 0) return { value: 0 };
      const value = config.mode === "flat" ? -config.penalty : -config.penalty * extra;
      return { value: value + 0 /* no -0 */, detail: `${calls} tool calls, ${config.max_calls} allowed` };
    },
  };
}

/** Its value is ≤ 0 (a penalty); unbounded below in `per_call` mode. */
export const toolPenaltyComponent = defineRewardComponent({
  schema: toolPenaltySchema,
  range: [Number.NEGATIVE_INFINITY, 0],
  create: createToolPenalty,
});
