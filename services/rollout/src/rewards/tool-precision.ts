// `tool_precision`: executed calls that were valid ÷ calls made. Every entry of `trajectory.tool_calls`
// is a call made (malformed ones and those refused as not offered included); a valid one ran and
// succeeded (`error_code` null: no gateway error, no tool error). A call the infrastructure failed
// (TIMEOUT, UNAVAILABLE, ... — not the model's doing) makes the reward null with a reward_error, never
// a lower precision. A rollout without calls scores `no_calls` (default 0).

import { INFRA_CALL_CODES, serviceCallCode } from "@rlfactory/contracts";
import { z } from "zod";
import { RewardInfraError } from "./errors.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const toolPrecisionSchema = z.strictObject({
  type: z.literal("tool_precision"),
  ...componentBaseShape,
  /** The value of a rollout that made no tool call. */
  no_calls: z.number().min(0).max(1).default(0),
});
export type ToolPrecisionConfig = z.infer<typeof toolPrecisionSchema>;

export function createToolPrecision(config: ToolPrecisionConfig): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    score: ({ trajectory }) => {
      const calls = trajectory.tool_calls;
      if (calls.length === 0) return { value: config.no_calls, detail: "no tool calls" };
      const infra = calls.find((c) => c.error_code !== null && INFRA_CALL_CODES.has(c.error_code));
      if (infra !== undefined) {
        throw new RewardInfraError(
          name,
          serviceCallCode(infra.error_code!),
          `the call to ${infra.name} failed for the infrastructure (${infra.error_code}), not for the model`,
        );
      }
      const valid = calls.filter((c) => c.error_code === null && !c.is_error).length;
      return { value: valid / calls.length, detail: `${valid} of ${calls.length} calls valid` };
    },
  };
}

export const toolPrecisionComponent = defineRewardComponent({
  schema: toolPrecisionSchema,
  range: [0, 1],
  create: createToolPrecision,
});
