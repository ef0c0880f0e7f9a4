// `bfcl_state` and `task_completion`: BFCL multi-turn's state check. After each user turn and at the
// end, the trajectory's environment state must equal the state produced by executing that turn's
// ground-truth calls on a fresh instance. The component starts a fresh episode through the gateway with
// the task's `environment` config, executes the ground truth of user turns 0..k in order (alias names
// mapped to gateway names, every call in the episode), snapshots after each turn, and compares each
// snapshot with the trajectory's stored one for that user turn (`metadata.environment.snapshots`):
// deep equality of the snapshots is the check (BFCL compares the environment's public attributes,
// which is what its environment server snapshots).
//   - `bfcl_state`: 1 when every user turn of the task was reached and passed, else 0 (BFCL's
//     multi-turn accuracy);
//   - `task_completion`: the fraction of the task's user turns whose state check passed (a turn the
//     trajectory never reached fails).
// Ground truth: user turn k ≥ 1 takes `turns[k-1].ground_truth`; user turn 0 (the prompt's) takes
// `task.ground_truth` when it is a list of calls. Either may also come from a `task.ground_truth` that
// is a list of per-user-turn lists (BFCL's own shape). A call is `{name, arguments}`.
// Both components of one trajectory share one replay. A replay call the infrastructure failed, or a
// stored snapshot missing / truncated: reward null with a reward_error, never 0.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { Task } from "../task.ts";
import type { Trajectory } from "../trajectory.ts";
import { CONFIG_CALL_CODES, oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import {
  componentBaseShape,
  componentName,
  defineRewardComponent,
  type RewardComponent,
  type RewardContext,
} from "./types.ts";

const callSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
const callsSchema = z.array(callSchema);
type GroundTruthCall = z.infer<typeof callSchema>;

const baseShape = {
  ...componentBaseShape,
  /** Per replayed call. */
  deadline_ms: z.number().int().positive().default(30_000),
};
export const bfclStateSchema = z.strictObject({ type: z.literal("bfcl_state"), ...baseShape });
export const taskCompletionSchema = z.strictObject({ type: z.literal("task_completion"), ...baseShape });
type StateCheckConfig = z.infer<typeof bfclStateSchema> | z.infer<typeof taskCompletionSchema>;

/** The ground-truth calls of each user turn of the task (index 0: the prompt's). */
export function groundTruthPerUserTurn(task: Task, component: string): GroundTruthCall[][] {
  const count = 1 + (task.turns?.length ?? 0);
  const top = task.ground_truth;
  const perTurnTop =
    Array.isArray(top) && top.length > 0 && top.every(Array.isArray) ? (top as unknown[]) : undefined;
  const out: GroundTruthCall[][] = [];
  for (let k = 0; k < count; k++) {
    const raw =
      k === 0
        ? (perTurnTop?.[0] ?? (perTurnTop === undefined ? top : undefined))
        : (task.turns?.[k - 1]?.ground_truth ?? perTurnTop?.[k]);
    const field = k === 0 ? "ground_truth" : `turns[${k - 1}].ground_truth`;
    if (raw === undefined) {
      throw new RewardConfigError(
        component,
        "NO_GROUND_TRUTH",
        `task ${task.id} has no ${field} (user turn ${k})`,
      );
    }
    const parsed = callsSchema.safeParse(raw);
    if (!parsed.success) {
      throw new RewardConfigError(
        component,
        "BAD_GROUND_TRUTH",
        `task ${task.id}: ${field} is not a list of {name, arguments} calls`,
      );
    }
    out.push(parsed.data);
  }
  return out;
}

/** The stored state per user turn (undefined where the trajectory has none). */
function storedStates(trajectory: Trajectory, component: string): Map<number, unknown> {
  const env = trajectory.metadata?.environment as { snapshots?: Record<string, unknown>[] } | undefined;
  const snapshots = env?.snapshots ?? [];
  if (snapshots.at(-1)?.final !== true) {
    throw new RewardConfigError(component, "NO_SNAPSHOT", "the trajectory has no final environment snapshot");
  }
  const out = new Map<number, unknown>();
  for (const s of snapshots) {
    if (s.truncated === true) {
      throw new RewardConfigError(
        component,
        "SNAPSHOT_TRUNCATED",
        `the snapshot of user turn ${String(s.user_turn)} was ${String(s.bytes)} bytes, over rollout.max_snapshot_bytes: it was not stored`,
      );
    }
    out.set(Number(s.user_turn), s.state);
  }
  return out;
}

/** Per user turn of the task: its state check passed. Replays the ground truth in a fresh episode. */
async function checkTurns(
  task: Task,
  trajectory: Trajectory,
  ctx: RewardContext,
  config: StateCheckConfig,
  component: string,
): Promise<boolean[]> {
  const environment = task.environment;
  if (environment === undefined) {
    throw new RewardConfigError(component, "NO_ENVIRONMENT", `task ${task.id} has no environment`);
  }
  if (ctx.episodes === undefined) {
    throw new RewardConfigError(component, "NO_EPISODE_API", "scoring has no gateway episode API");
  }
  const truth = groundTruthPerUserTurn(task, component);
  const stored = storedStates(trajectory, component);
  const reached = Math.max(...stored.keys());
  const aliases = task.tool_aliases ?? {};
  const prefix = `${environment.server}__`;
  const infra = (code: string, message: string) => new RewardInfraError(component, code, oneLine(message));
  let id: string;
  try {
    id = await ctx.episodes.start(environment.server, environment.config);
  } catch (e) {
    throw infra((e as { code?: string }).code ?? "UNAVAILABLE", `replay episode: ${(e as Error).message}`);
  }
  try {
    const passed: boolean[] = [];
    for (let k = 0; k < truth.length; k++) {
      if (k > reached) {
        passed.push(false);
        continue;
      }
      for (const call of truth[k]!) {
        const name = aliases[call.name] ?? call.name;
        const out = await ctx.tools.call(name, call.arguments, {
          deadlineMs: config.deadline_ms,
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          ...(name.startsWith(prefix) ? { episodeId: id } : {}),
        });
        if (out.errorCode === "OK") continue; // a tool's own error is part of the ground truth's effect
        if (CONFIG_CALL_CODES.has(out.errorCode)) {
          throw new RewardConfigError(
            component,
            out.errorCode,
            oneLine(`task ${task.id}: ground truth call ${call.name} of user turn ${k} refused: ${out.text}`),
          );
        }
        throw infra(out.errorCode, `ground truth call ${call.name} of user turn ${k}: ${out.text}`);
      }
      let state: unknown;
      try {
        state = await ctx.episodes.snapshot(id);
      } catch (e) {
        throw infra(
          (e as { code?: string }).code ?? "UNAVAILABLE",
          `replay snapshot: ${(e as Error).message}`,
        );
      }
      passed.push(stored.has(k) && isDeepStrictEqual(stored.get(k), state));
    }
    return passed;
  } finally {
    await ctx.episodes.end(id).catch(() => undefined);
  }
}

/** One replay per trajectory and scoring (context), shared by the components that score it. */
const replays = new WeakMap<RewardContext, WeakMap<Trajectory, Promise<boolean[]>>>();

function sharedCheck(
  task: Task,
  trajectory: Trajectory,
  ctx: RewardContext,
  config: StateCheckConfig,
  component: string,
): Promise<boolean[]> {
  let byTrajectory = replays.get(ctx);
  if (byTrajectory === undefined) {
    byTrajectory = new WeakMap();
    replays.set(ctx, byTrajectory);
  }
  let p = byTrajectory.get(trajectory);
  if (p === undefined) {
    p = checkTurns(task, trajectory, ctx, config, component);
    byTrajectory.set(trajectory, p);
  }
  return p.catch((e: unknown) => {
    // the error names the component that ran the replay: rename it for this one
    if (e instanceof RewardConfigError) throw new RewardConfigError(component, e.code, e.message);
    if (e instanceof RewardInfraError) throw new RewardInfraError(component, e.code, e.message);
    throw e;
  });
}

function create(config: StateCheckConfig, all: boolean): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    async score({ task, trajectory }, ctx) {
      const passed = await sharedCheck(task, trajectory, ctx, config, name);
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
