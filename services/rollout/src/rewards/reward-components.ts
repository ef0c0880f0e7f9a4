// The reward component registry: the single source of the component types. The config's
// discriminated union (`rewardComponentSchema`), the `RewardComponentType` union and
// `REWARD_COMPONENT_TYPES` derive from `COMPONENTS`. Adding a component is its own file (a schema with a
// literal `type`, a factory, its value range, declared with `defineRewardComponent`) plus one entry
// here, and its case in component-contract.test.ts (which the typecheck then demands).
import { z } from "zod";
import { bfclResponseComponent } from "./bfcl-response.ts";
import { bfclStateComponent, taskCompletionComponent } from "./bfcl-state.ts";
import { dbStateComponent } from "./db-state.ts";
import { envRewardComponent } from "./env-reward.ts";
import { formatComponent } from "./format.ts";
import { ftrlSolveComponent } from "./ftrl-solve.ts";
import { judgeComponent } from "./judge.ts";
import {
  exactMatchComponent,
  f1Component,
  multiComponent,
  stringCheckComponent,
  textSimilarityComponent,
} from "./rule-components.ts";
import { stateMatchComponent } from "./state-match.ts";
import { toolPenaltyComponent } from "./tool-penalty.ts";
import { toolPrecisionComponent } from "./tool-precision.ts";
import { toolVerifiedComponent } from "./tool-verified.ts";
import type { RewardComponent, RewardComponentDefinition } from "./types.ts";

const COMPONENTS = {
  exact_match: exactMatchComponent,
  f1: f1Component,
  string_check: stringCheckComponent,
  text_similarity: textSimilarityComponent,
  multi: multiComponent,
  format: formatComponent,
  tool_call_penalty: toolPenaltyComponent,
  tool_verified: toolVerifiedComponent,
  judge: judgeComponent,
  tool_precision: toolPrecisionComponent,
  state_match: stateMatchComponent,
  bfcl_state: bfclStateComponent,
  task_completion: taskCompletionComponent,
  ftrl_solve: ftrlSolveComponent,
  bfcl_response: bfclResponseComponent,
  db_state: dbStateComponent,
  env_reward: envRewardComponent,
} as const;

/** A registered component's `type`. */
export type RewardComponentType = keyof typeof COMPONENTS;

type ComponentSchema = (typeof COMPONENTS)[RewardComponentType]["schema"];

/** Every registered component, by type (read-only). */
export const rewardComponents: { readonly [T in RewardComponentType]: RewardComponentDefinition } =
  Object.freeze(COMPONENTS) as never;

export const REWARD_COMPONENT_TYPES = Object.freeze(Object.keys(COMPONENTS)) as readonly [
  RewardComponentType,
  ...RewardComponentType[],
];

/** One entry of the config's `components` list: the registered schemas, told apart by `type`. */
export const rewardComponentSchema = z.discriminatedUnion(
  "type",
  Object.values(COMPONENTS).map((c) => c.schema) as unknown as [ComponentSchema, ...ComponentSchema[]],
);
export type RewardComponentConfig = z.infer<typeof rewardComponentSchema>;

/** The component of a parsed config entry, built by its registry entry. */
export function createRewardComponent(entry: RewardComponentConfig): RewardComponent {
  return rewardComponents[entry.type].create(entry);
}
