// `db_state`: τ-bench's reward for database environments (FTRL's τ-bench imports, any environment).
// The trajectory's final environment state (its last snapshot, rebuilt from its diff when it was stored
// as one) must equal the state that the task's ground-truth actions produce: a fresh episode is
// started through the gateway with the task's `environment` config, every ground-truth call executed in
// order (alias names mapped by `tool_aliases`; a list of per-user-turn lists is run turn after turn),
// and its final state taken from EndEpisode. 1 when the two states are deeply equal, else 0. A tool's
// own error on a ground-truth call is part of its effect; a call the infrastructure fails, missing
// ground truth or a missing / truncated snapshot is a reward_error, never a 0.
import { isDeepStrictEqual } from "node:util";
import { CONFIG_CALL_CODES, serviceCallCode } from "@rlfactory/contracts";
import { z } from "zod";
import { stateDiff } from "../rollout/state-diff.ts";
import { groundTruthPerUserTurn } from "./bfcl-replay.ts";
import { oneLine, RewardConfigError, RewardInfraError } from "./errors.ts";
import { finalStoredSnapshot, isDiffSnapshot, rebuiltState } from "./stored-state.ts";
import { componentBaseShape, componentName, defineRewardComponent, type RewardComponent } from "./types.ts";

export const dbStateSchema = z.strictObject({
  type: z.literal("db_state"),
  ...componentBaseShape,
  /** Per replayed call. */
  deadline_ms: z.number().int().positive().default(30_000),
});
export type DbStateConfig = z.infer<typeof dbStateSchema>;

export function createDbState(config: DbStateConfig): RewardComponent {
  const name = componentName(config);
  return {
    name,
    weight: config.weight,
    async score({ task, trajectory }, ctx) {
      const stored = finalStoredSnapshot(trajectory, name);
      const calls = groundTruthPerUserTurn(task, name).flat();
      const environment = task.environment;
      if (environment === undefined)
        throw new RewardConfigError(name, "NO_ENVIRONMENT", `task ${task.id} has no environment`);
      const episodes = ctx.episodes;
      if (episodes === undefined)
        throw new RewardConfigError(name, "NO_EPISODE_API", "scoring has no gateway episode API");
      const infra = (e: unknown, what: string) =>
        new RewardInfraError(
          name,
          serviceCallCode((e as { code?: string }).code ?? "UNAVAILABLE"),
          oneLine(`${what}: ${(e as Error).message}`),
        );
      let id: string;
      try {
        id = await episodes.start(environment.server, environment.config);
      } catch (e) {
        throw infra(e, "ground-truth episode");
      }
      let ended = false;
      try {
        // the fresh episode's initial state is the base a diff snapshot is rebuilt on
        const initial = isDiffSnapshot(stored)
          ? await episodes.snapshot(id).catch((e: unknown) => {
              throw infra(e, "ground-truth episode's initial state");
            })
          : undefined;
        const aliases = task.tool_aliases ?? {};
        const prefix = `${environment.server}__`;
        for (const call of calls) {
          const tool = aliases[call.name] ?? call.name;
          const out = await ctx.tools.call(tool, call.arguments, {
            deadlineMs: config.deadline_ms,
            ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
            ...(tool.startsWith(prefix) ? { episodeId: id } : {}),
          });
          // a tool's own error, or the gateway refusing arguments off the schema: no effect, as for the model
          if (out.errorCode === "OK" || out.errorCode === "INVALID_ARGUMENTS") continue;
          const message = `task ${task.id}: ground-truth call ${call.name}: ${out.text}`;
          if (CONFIG_CALL_CODES.has(out.errorCode))
            throw new RewardConfigError(name, serviceCallCode(out.errorCode), oneLine(message));
          throw new RewardInfraError(name, serviceCallCode(out.errorCode), oneLine(message));
        }
        ended = true;
        const expected = await episodes.end(id).catch((e: unknown) => {
          throw infra(e, "ground-truth episode's final state");
        });
        const actual = await rebuiltState(stored, async () => initial, name);
        if (isDeepStrictEqual(actual, expected))
          return { value: 1, detail: `the final state equals the ground truth's (${calls.length} calls)` };
        const differing = stateDiff(expected, actual).map((op) => op.path);
        return {
          value: 0,
          detail: oneLine(
            `the final state differs from the ground truth's at ${differing.length} path(s): ${differing.slice(0, 5).join(", ")}`,
          ),
        };
      } finally {
        if (!ended) await episodes.end(id).catch(() => undefined);
      }
    },
  };
}

export const dbStateComponent = defineRewardComponent({
  schema: dbStateSchema,
  range: [0, 1],
  create: createDbState,
});
