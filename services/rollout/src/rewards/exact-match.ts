// `exact_match`: 1 when the normalised answer equals a normalised gold answer (SQuAD's
// `normalize_answer`, as Search-R1 uses it: qa-match.ts), else 0. No answer scores 0; a task without
// gold answers is a config/data error (NO_GOLD_ANSWERS).
import { z } from "zod";
import { exactMatch, qaComponent } from "./qa-match.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const exactMatchSchema = z.strictObject({ type: z.literal("exact_match"), ...componentBaseShape });
export type ExactMatchConfig = z.infer<typeof exactMatchSchema>;

export function createExactMatch(config: ExactMatchConfig): RewardComponent {
  return qaComponent(componentName(config), config.weight, exactMatch);
}

export const exactMatchComponent = defineRewardComponent({
  schema: exactMatchSchema,
  range: [0, 1],
  create: createExactMatch,
});
