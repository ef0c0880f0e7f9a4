// `f1`: the best token F1 of the answer over the gold answers (SQuAD v1.1, with HotpotQA's
// yes/no/noanswer rule: qa-match.ts). No answer scores 0; a task without gold answers is a config/data
// error (NO_GOLD_ANSWERS).
import { z } from "zod";
import { f1Score, qaComponent } from "./qa-match.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const f1Schema = z.strictObject({ type: z.literal("f1"), ...componentBaseShape });
export type F1Config = z.infer<typeof f1Schema>;

export function createF1(config: F1Config): RewardComponent {
  return qaComponent(componentName(config), config.weight, f1Score);
}

export const f1Component = defineRewardComponent({ schema: f1Schema, range: [0, 1], create: createF1 });
