// The ground-truth replay behind BFCL multi-turn's checks (`bfcl_state`, `task_completion`,
// `bfcl_response`): a fresh episode started through the gateway with the task's `environment` config,
// the ground truth of user turns 0..k executed in order (alias names mapped to gateway names, every
// call of the environment's server in that episode), a snapshot after each user turn compared with the
// trajectory's stored one for that turn (`metadata.environment.snapshots`), and each call's result text
// kept (what the gateway answered, as the model's calls are recorded). User turns past the last one the
// trajectory reached are not replayed. One replay per trajectory and scoring, shared by every component
// that scores it. A replay call the infrastructure failed, or a stored snapshot missing / truncated:
// a typed scoring error (reward null with a reward_error), never 0.
import { isDeepStrictEqual } from "node:util";
import type { Task, Trajectory } from "@rlfactory/contracts";
import { CONFIG_CALL_CODES, serviceCallCode } from "@rlfactory/contracts";
import { z } from "zod";
import { oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import { isDiffSnapshot, rebuiltState } from "./stored-state.ts";
import { componentBaseShape, type RewardContext } from "./types.ts";

const callSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
const callsSchema = z.array(callSchema);
export type GroundTruthCall = z.infer<typeof callSchema>;

/** The config keys of every component that scores through the replay. */
export const replayShape = {
  ...componentBaseShape,
  /** Per replayed call. */
  deadline_ms: z.number().int().positive().default(30_000),
};

/** One user turn of the task, as the replay saw it. */
export interface ReplayedTurn {
  /** How many ground-truth calls this user turn has (0: BFCL checks nothing in it). */
  calls: number;
  /** The trajectory reached this user turn (it has a stored snapshot for it). */
  reached: boolean;
  /** The stored state equals the replay's after this user turn (false when not reached). */
  stateMatches: boolean;
  /** The ground-truth calls' result texts, in call order (empty when not reached). */
  results: string[];
}

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

/** The stored snapshot per user turn (a full state or a diff; undefined where the trajectory has none). */
function storedStates(trajectory: Trajectory, component: string): Map<number, Record<string, unknown>> {
  const env = trajectory.metadata?.environment as { snapshots?: Record<string, unknown>[] } | undefined;
  const snapshots = env?.snapshots ?? [];
  if (snapshots.at(-1)?.final !== true) {
    throw new RewardConfigError(component, "NO_SNAPSHOT", "the trajectory has no final environment snapshot");
  }
  const out = new Map<number, Record<string, unknown>>();
  for (const s of snapshots) {
    if (s.truncated === true) {
      throw new RewardConfigError(
        component,
        "SNAPSHOT_TRUNCATED",
        `the snapshot of user turn ${String(s.user_turn)} was ${String(s.bytes)} bytes, over rollout.max_snapshot_bytes: it was not stored`,
      );
    }
    out.set(Number(s.user_turn), s);
  }
  return out;
}

async function replay(
  task: Task,
  trajectory: Trajectory,
  ctx: RewardContext,
  deadlineMs: number,
  component: string,
): Promise<ReplayedTurn[]> {
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
  const infra = (code: string, message: string) =>
    new RewardInfraError(component, serviceCallCode(code), oneLine(message));
  let id: string;
  try {
    id = await ctx.episodes.start(environment.server, environment.config);
  } catch (e) {
    throw infra((e as { code?: string }).code ?? "UNAVAILABLE", `replay episode: ${(e as Error).message}`);
  }
  try {
    // a snapshot stored as a diff is rebuilt on the fresh episode's initial state
    let initial: unknown;
    if ([...stored.values()].some(isDiffSnapshot)) {
      try {
        initial = await ctx.episodes.snapshot(id);
      } catch (e) {
        throw infra(
          (e as { code?: string }).code ?? "UNAVAILABLE",
          `replay initial snapshot: ${(e as Error).message}`,
        );
      }
    }
    const storedState = (k: number) => rebuiltState(stored.get(k)!, async () => initial, component);
    const turns: ReplayedTurn[] = [];
    for (let k = 0; k < truth.length; k++) {
      const calls = truth[k]!;
      if (k > reached) {
        turns.push({ calls: calls.length, reached: false, stateMatches: false, results: [] });
        continue;
      }
      const results: string[] = [];
      for (const call of calls) {
        const name = aliases[call.name] ?? call.name;
        const out = await ctx.tools.call(name, call.arguments, {
          deadlineMs,
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          ...(name.startsWith(prefix) ? { episodeId: id } : {}),
        });
        if (out.errorCode === "OK" || out.errorCode === "INVALID_ARGUMENTS") {
          // a tool's own error is part of the ground truth's effect (and its result); so is the
          // gateway refusing arguments off the tool's schema (BFCL's own ground truth has such calls,
          // which Python runs regardless): no effect, and the same refusal the model's same call gets
          results.push(out.text);
          continue;
        }
        if (CONFIG_CALL_CODES.has(out.errorCode)) {
          throw new RewardConfigError(
            component,
            serviceCallCode(out.errorCode),
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
      turns.push({
        calls: calls.length,
        reached: stored.has(k),
        stateMatches: stored.has(k) && isDeepStrictEqual(await storedState(k), state),
        results,
      });
    }
    return turns;
  } finally {
    await ctx.episodes.end(id).catch(() => undefined);
  }
}

/** One replay per trajectory and scoring (context), shared by the components that score it. */
const replays = new WeakMap<RewardContext, WeakMap<Trajectory, Promise<ReplayedTurn[]>>>();

/**
 * The replay of the trajectory's task: run once per trajectory and scoring, whichever component asks
 * first; a failure is rethrown under the asking component's name.
 */
export function sharedReplay(
  task: Task,
  trajectory: Trajectory,
  ctx: RewardContext,
  deadlineMs: number,
  component: string,
): Promise<ReplayedTurn[]> {
  let byTrajectory = replays.get(ctx);
  if (byTrajectory === undefined) {
    byTrajectory = new WeakMap();
    replays.set(ctx, byTrajectory);
  }
  let p = byTrajectory.get(trajectory);
  if (p === undefined) {
    p = replay(task, trajectory, ctx, deadlineMs, component);
    byTrajectory.set(trajectory, p);
  }
  return p.catch((e: unknown) => {
    // the error names the component that ran the replay: rename it for this one
    if (e instanceof RewardConfigError) throw new RewardConfigError(component, e.code, e.message);
    if (e instanceof RewardInfraError) throw new RewardInfraError(component, e.code, e.message);
    throw e;
  });
}
