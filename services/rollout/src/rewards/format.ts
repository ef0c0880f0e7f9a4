// `format`: 1 when the rollout is well-formed, else 0. Well-formed means all three of:
//   - it ended with an answer (`answer` is not null),
//   - no sampled turn had malformed calls or lacked an action (`malformedTurns` is 0),
//   - its status is `completed` (not truncated by a length/turn budget, aborted or failed).
// The "format bonus" of Search-R1 / RL-Factory (0.1 in training) is this component with weight 0.1.
import { z } from "zod";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const formatSchema = z.strictObject({ type: z.literal("format"), ...componentBaseShape });
export type FormatConfig = z.infer<typeof formatSchema>;

export function createFormat(config: FormatConfig): RewardComponent {
  return {
    name: componentName(config),
    weight: config.weight,
    score: ({ answer, malformedTurns, trajectory }) => {
      const problems: string[] = [];
      if (answer === null) problems.push("no answer");
      if (malformedTurns > 0) problems.push(`${malformedTurns} malformed turn(s)`);
      if (trajectory.status !== "completed") problems.push(`status ${trajectory.status}`);
      return problems.length === 0 ? { value: 1 } : { value: 0, detail: problems.join("; ") };
    },
  };
}

export const formatComponent = defineRewardComponent({
  schema: formatSchema,
  range: [0, 1],
  create: createFormat,
});
