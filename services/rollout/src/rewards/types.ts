// The reward contract: what a reward component reads (a finished trajectory and its decoded turns),
// what it may call (tools through the gateway, a judge), and what it returns. Components are plain
// objects built from their config entry (registered in `reward-components.ts`); `reward-config.ts`
// composes them.

import type { Task, Trajectory } from "@rlfactory/contracts";
import { z } from "zod";
import type { ToolInvoker } from "../gateway-tools.ts";
import type { EpisodeApi } from "../rollout/episodes.ts";

/** A finished rollout, ready to be scored. */
export interface RewardInput {
  task: Task;
  trajectory: Trajectory;
  /** Decoded text of each sampled turn, in order (one per `kind: "sampled"` entry of `trajectory.turns`). */
  sampledTexts: string[];
  /** The final answer as the format's parser extracted it (the last `<answer>`), or null. */
  answer: string | null;
  /** How many sampled turns had malformed calls or no action. */
  malformedTurns: number;
  /**
   * Optional, for per-turn process rewards: one flag per sampled turn (aligned with `sampledTexts`),
   * true when that turn had malformed calls or no action. Needed only by a non-zero `process.malformed`.
   */
  sampledTurnMalformed?: readonly boolean[];
}

/**
 * What a `judge` reward component asks its Judge to score: the task, the answer and the sampled text.
 * (The judge service's own request language is judge.proto's `JudgeRequest`; GrpcJudge turns this
 * query into one of those, see judgeRequestFor.)
 */
export interface RewardJudgeQuery {
  task: Task;
  answer: string | null;
  sampledTexts: readonly string[];
  signal?: AbortSignal;
}

export interface JudgeVerdict {
  /** In [0, 1]. */
  score: number;
  explanation?: string;
}

/** A model (or rubric) grading an answer. Failures throw; they are never a score of 0. */
export interface Judge {
  score(query: RewardJudgeQuery): Promise<JudgeVerdict>;
}

export interface RewardContext {
  /** Verify tools: the gateway adapter (gateway-tools.ts), or a test double. */
  tools: ToolInvoker;
  judge?: Judge;
  /** The gateway's episode RPCs: components that replay a task's ground truth in a fresh episode. */
  episodes?: EpisodeApi;
  /** Aborts scoring (the rollout was cancelled): pending tool and judge calls stop. */
  signal?: AbortSignal;
}

/** One component's unweighted value, with an optional one-line note (why a 0, the judge's explanation). */
export interface ComponentScore {
  value: number;
  detail?: string;
  /** Leave this component out of the total and of `reward_components` (a judge's "skip" fallback); `detail` says why. */
  skipped?: true;
  /**
   * A per-turn component's unweighted value of each entry of `trajectory.turns` (0 on observation
   * turns); the composed reward adds weight × these into `turn_rewards`.
   */
  turnValues?: number[];
}

/** A configured component: its name in `reward_components`, its weight, and its scorer. */
export interface RewardComponent {
  readonly name: string;
  readonly weight: number;
  score(input: RewardInput, ctx: RewardContext): ComponentScore | Promise<ComponentScore>;
}

/** Keys every component entry takes besides its `type` and own parameters. */
export const componentBaseShape = {
  /** Multiplies the component's value in the total; 0 still runs and reports it. */
  weight: z.number().finite().default(1),
  /** Name in `reward_components` (default: the type); needed when a type appears twice. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, "use letters, digits, '_', '.', '-'")
    .optional(),
};

/**
 * One entry of the reward component registry (`reward-components.ts`): the zod schema of its config
 * entry (a strict object with a literal `type`, `componentBaseShape` spread in), the values it can
 * score (inclusive; the contract suite holds every component to it), and the factory.
 */
export interface RewardComponentDefinition<Config extends { type: string } = { type: string }> {
  readonly schema: z.ZodType<Config>;
  readonly range: readonly [min: number, max: number];
  create(config: Config): RewardComponent;
}

/** Declares a registry entry, inferring its config type from the schema. */
export function defineRewardComponent<S extends z.ZodType<{ type: string }>>(definition: {
  schema: S;
  range: readonly [min: number, max: number];
  create(config: z.output<S>): RewardComponent;
}): {
  readonly schema: S;
  readonly range: readonly [number, number];
  create(config: z.output<S>): RewardComponent;
} {
  return Object.freeze(definition);
}

/** The component's name: its configured `name`, else its `type`. */
export function componentName(entry: { type: string; name?: string | undefined }): string {
  return entry.name ?? entry.type;
}
