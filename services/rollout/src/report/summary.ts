// The run summary of a rollout: one plain JSON object (schema below) computed from the trajectories
// and the run's wall time. Percentiles are exact nearest-rank (see @rlfactory/kit percentile.ts). The reward std is the
// population std (divide by n) of all scored rewards of the run: a description of this run, not an
// estimate. GRPO advantages (grpo.ts) are a different statistic: per group, with the unbiased (n − 1)
// std as verl computes it.

import type { Trajectory, TrajectoryStatus } from "@rlfactory/contracts";
import { extent, percentileOfSorted, sortAscending } from "@rlfactory/kit";
import { z } from "zod";
import { turnRewardMeans } from "../turn-rewards.ts";

export const ROLLOUT_SUMMARY_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();
const finite = z.number().finite();

const quantilesSchema = z.object({
  p50: finite,
  p95: finite,
  p99: finite,
  max: finite,
});

const distributionSchema = z.object({
  mean: finite,
  p50: finite,
  max: finite,
});

export const rolloutSummarySchema = z.object({
  schema_version: z.literal(ROLLOUT_SUMMARY_SCHEMA_VERSION),
  /** How percentiles were computed, for whoever reads the JSON later. */
  percentile_method: z.literal("nearest-rank"),
  started_at: z.string().nullable(),
  wall_ms: z.number().nonnegative(),
  config: z.record(z.string(), z.unknown()).nullable(),
  trajectories: count,
  status: z.object({ completed: count, truncated: count, aborted: count, failed: count }),
  /** The most frequent non-null `status_reason`s, most frequent first (ties by status, then reason). */
  status_reasons: z.array(z.object({ status: z.string(), reason: z.string(), count })),
  /** Over trajectories with a non-null reward; null fields when none is scored. */
  reward: z.object({
    scored: count,
    unscored: count,
    mean: finite.nullable(),
    /** Population standard deviation. */
    std: finite.nullable(),
    min: finite.nullable(),
    max: finite.nullable(),
  }),
  /** Infrastructure failures while scoring, by component and code, most frequent first. */
  reward_errors: z.object({
    total: count,
    by_code: z.array(z.object({ component: z.string(), code: z.string(), count })),
  }),
  /** Mean of each reward component over the trajectories that carry it. */
  reward_components: z.record(z.string(), z.object({ mean: finite, count })),
  /** Mean exact match: the `exact_match` component, else `em`; null when neither is present. */
  exact_match: finite.nullable(),
  /** Sampled (loss-mask 1) turns per trajectory; null when there are no trajectories. */
  turns: distributionSchema.nullable(),
  /**
   * Mean of `turn_rewards` per sampled turn (`turn` 1-based: the trajectory's K-th sampled turn), over
   * the trajectories that carry `turn_rewards` and reached that turn; null when none carries them.
   */
  turn_rewards: z.array(z.object({ turn: count, mean: finite, count })).nullable(),
  tool_calls: z.object({
    total: count,
    errors: count,
    per_trajectory_mean: finite.nullable(),
    /** Per tool name, most calls first; latencies over all of that tool's calls, errors included. */
    by_tool: z.array(
      z.object({ name: z.string(), count, errors: count, latency_ms: quantilesSchema.nullable() }),
    ),
    /** Failed calls by `error_code`, most frequent first. */
    by_error_code: z.array(z.object({ code: z.string(), count })),
  }),
  tokens: z.object({
    prompt: count,
    /** Loss-mask 1: what the policy generated. */
    sampled: count,
    /** Loss-mask 0: tool results and template tokens. */
    observation: count,
  }),
  /** Over `wall_ms`; null when the wall time is 0. */
  throughput: z.object({
    trajectories_per_s: finite.nullable(),
    sampled_tokens_per_s: finite.nullable(),
  }),
  /** Per timing name (`generate_ms`, `tool_ms`, …), over the trajectories that carry it. */
  timings_ms: z.record(z.string(), quantilesSchema.extend({ mean: finite, count })),
  /** GRPO groups; null unless some `group_id` has more than one trajectory. */
  groups: z
    .object({
      groups: count,
      /** Groups of two or more trajectories. */
      multi_sample: count,
      size: z.object({ min: count, mean: finite, max: count }),
      /** Multi-sample groups, all scored, whose rewards are all equal: every advantage is 0, no gradient. */
      zero_advantage: count,
      zero_advantage_fraction: finite.nullable(),
      /** The shared reward of the zero-advantage groups (e.g. all 0 = too hard, all 1 = too easy). */
      zero_advantage_by_reward: z.array(z.object({ reward: finite, groups: count })),
      /** Groups with a null reward in them (cannot be normalised). */
      with_unscored: count,
    })
    .nullable(),
  /**
   * Captured agent runs (`rlf rollout agent`: trajectories with `metadata.capture`); absent for built-in
   * rollouts. `diverged`: trajectories whose session had a request that did not extend the one before
   * (the record keeps only the last segment); `diverged_requests`: such requests over the run.
   */
  capture: z.object({ trajectories: count, diverged: count, diverged_requests: count }).optional(),
});

export type RolloutSummary = z.infer<typeof rolloutSummarySchema>;

export const rolloutRunSchema = z.object({
  wallMs: z.number().finite().nonnegative(),
  startedAt: z.string().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});

export interface RolloutRun {
  /** Wall-clock duration of the rollout, for throughput. */
  wallMs: number;
  /** ISO time the rollout started. */
  startedAt?: string;
  /** The normalised run config, copied into the summary as is (must be JSON-able). */
  config?: Record<string, unknown>;
}

export interface SummarizeOptions {
  /** How many status reasons to keep (default 10). */
  topReasons?: number;
}

const STATUSES: readonly TrajectoryStatus[] = ["completed", "truncated", "aborted", "failed"];

function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function populationStd(xs: readonly number[], m: number): number {
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / xs.length);
}

function quantiles(values: readonly number[]): z.infer<typeof quantilesSchema> | null {
  if (values.length === 0) return null;
  const sorted = sortAscending(values);
  return {
    p50: percentileOfSorted(sorted, 50)!,
    p95: percentileOfSorted(sorted, 95)!,
    p99: percentileOfSorted(sorted, 99)!,
    max: sorted[sorted.length - 1]!,
  };
}

/** Counts occurrences of each key. */
function tally<K extends string>(keys: Iterable<K>): Map<K, number> {
  const m = new Map<K, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

const byCountThenName =
  <T extends { count: number }>(name: (t: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);

/** Number of turns of kind "sampled" (what the policy generated), per trajectory. */
export function sampledTurnCount(t: Trajectory): number {
  let n = 0;
  for (const turn of t.turns) if (turn.kind === "sampled") n++;
  return n;
}

export function summarizeRollout(
  trajectories: readonly Trajectory[],
  run: RolloutRun,
  options: SummarizeOptions = {},
): RolloutSummary {
  const checkedRun = rolloutRunSchema.safeParse(run);
  if (!checkedRun.success) throw new Error(`summarizeRollout: bad run: ${z.prettifyError(checkedRun.error)}`);
  const topReasons = options.topReasons ?? 10;
  const n = trajectories.length;

  const status = { completed: 0, truncated: 0, aborted: 0, failed: 0 };
  const reasons = new Map<string, { status: string; reason: string; count: number }>();
  const rewards: number[] = [];
  const rewardErrors = new Map<string, { component: string; code: string; count: number }>();
  const components = new Map<string, number[]>();
  const turnCounts: number[] = [];
  const tools = new Map<string, { latencies: number[]; errors: number }>();
  const errorCodes: string[] = [];
  const tokens = { prompt: 0, sampled: 0, observation: 0 };
  const timings = new Map<string, number[]>();
  const groups = new Map<string, (number | null)[]>();
  let toolCalls = 0;
  const capture = { trajectories: 0, diverged: 0, diverged_requests: 0 };

  for (const t of trajectories) {
    status[t.status]++;
    const divergences = capturedDivergences(t);
    if (divergences !== undefined) {
      capture.trajectories++;
      if (divergences > 0) capture.diverged++;
      capture.diverged_requests += divergences;
    }
    if (t.status_reason !== null) {
      const key = `${t.status}\u0000${t.status_reason}`;
      const e = reasons.get(key) ?? { status: t.status, reason: t.status_reason, count: 0 };
      e.count++;
      reasons.set(key, e);
    }
    if (t.reward !== null) rewards.push(t.reward);
    if (t.reward_error) {
      const key = `${t.reward_error.component}\u0000${t.reward_error.code}`;
      const e = rewardErrors.get(key) ?? {
        component: t.reward_error.component,
        code: t.reward_error.code,
        count: 0,
      };
      e.count++;
      rewardErrors.set(key, e);
    }
    for (const [name, v] of Object.entries(t.reward_components)) {
      const list = components.get(name) ?? [];
      list.push(v);
      components.set(name, list);
    }
    turnCounts.push(sampledTurnCount(t));
    for (const c of t.tool_calls) {
      toolCalls++;
      const e = tools.get(c.name) ?? { latencies: [], errors: 0 };
      e.latencies.push(c.latency_ms);
      if (c.error_code !== null) {
        e.errors++;
        errorCodes.push(c.error_code);
      }
      tools.set(c.name, e);
    }
    tokens.prompt += t.prompt_ids.length;
    for (const m of t.loss_mask) {
      if (m === 1) tokens.sampled++;
      else tokens.observation++;
    }
    for (const [name, ms] of Object.entries(t.timings)) {
      const list = timings.get(name) ?? [];
      list.push(ms);
      timings.set(name, list);
    }
    const g = groups.get(t.group_id) ?? [];
    g.push(t.reward);
    groups.set(t.group_id, g);
  }

  const rewardMean = mean(rewards);
  const componentMeans: RolloutSummary["reward_components"] = {};
  for (const [name, vs] of [...components].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    componentMeans[name] = { mean: mean(vs)!, count: vs.length };
  }
  const em = componentMeans.exact_match ?? componentMeans.em;

  const sortedTurns = sortAscending(turnCounts);
  const wallS = run.wallMs / 1000;

  const summary: RolloutSummary = {
    schema_version: ROLLOUT_SUMMARY_SCHEMA_VERSION,
    percentile_method: "nearest-rank",
    started_at: run.startedAt ?? null,
    wall_ms: run.wallMs,
    config: run.config ?? null,
    trajectories: n,
    status,
    status_reasons: [...reasons.values()]
      .sort(byCountThenName((r) => `${STATUSES.indexOf(r.status as TrajectoryStatus)}${r.reason}`))
      .slice(0, topReasons),
    reward: {
      scored: rewards.length,
      unscored: n - rewards.length,
      mean: rewardMean,
      std: rewardMean === null ? null : populationStd(rewards, rewardMean),
      min: extent(rewards)?.[0] ?? null,
      max: extent(rewards)?.[1] ?? null,
    },
    reward_errors: {
      total: [...rewardErrors.values()].reduce((s, e) => s + e.count, 0),
      by_code: [...rewardErrors.values()].sort(byCountThenName((e) => `${e.component}/${e.code}`)),
    },
    reward_components: componentMeans,
    exact_match: em?.mean ?? null,
    turns:
      n === 0
        ? null
        : {
            mean: mean(turnCounts)!,
            p50: percentileOfSorted(sortedTurns, 50)!,
            max: sortedTurns[n - 1]!,
          },
    turn_rewards: turnRewardMeans(trajectories)?.map((m, k) => ({ turn: k + 1, ...m })) ?? null,
    tool_calls: {
      total: toolCalls,
      errors: errorCodes.length,
      per_trajectory_mean: n === 0 ? null : toolCalls / n,
      by_tool: [...tools]
        .map(([name, e]) => ({
          name,
          count: e.latencies.length,
          errors: e.errors,
          latency_ms: quantiles(e.latencies),
        }))
        .sort(byCountThenName((e) => e.name)),
      by_error_code: [...tally(errorCodes)]
        .map(([code, c]) => ({ code, count: c }))
        .sort(byCountThenName((e) => e.code)),
    },
    tokens,
    throughput: {
      trajectories_per_s: wallS > 0 ? n / wallS : null,
      sampled_tokens_per_s: wallS > 0 ? tokens.sampled / wallS : null,
    },
    timings_ms: Object.fromEntries(
      [...timings]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, vs]) => [name, { mean: mean(vs)!, count: vs.length, ...quantiles(vs)! }]),
    ),
    groups: summarizeGroups(groups),
    ...(capture.trajectories > 0 && { capture }),
  };
  return rolloutSummarySchema.parse(summary);
}

/** A captured trajectory's diverged requests (`metadata.capture.requests`); undefined when not captured. */
function capturedDivergences(t: Trajectory): number | undefined {
  const capture = t.metadata?.capture as { requests?: unknown } | undefined;
  if (capture === undefined || capture === null || !Array.isArray(capture.requests)) return undefined;
  return capture.requests.filter((r) => (r as { prefix?: unknown } | null)?.prefix === "diverged").length;
}

function summarizeGroups(groups: ReadonlyMap<string, readonly (number | null)[]>): RolloutSummary["groups"] {
  const sizes = [...groups.values()].map((g) => g.length);
  if (!sizes.some((s) => s > 1)) return null;
  let multi = 0;
  let withUnscored = 0;
  const zeroByReward = new Map<number, number>();
  for (const rewards of groups.values()) {
    if (rewards.some((r) => r === null)) withUnscored++;
    if (rewards.length < 2) continue;
    multi++;
    const first = rewards[0];
    if (first != null && rewards.every((r) => r === first)) {
      zeroByReward.set(first, (zeroByReward.get(first) ?? 0) + 1);
    }
  }
  const zero = [...zeroByReward.values()].reduce((s, c) => s + c, 0);
  return {
    groups: groups.size,
    multi_sample: multi,
    size: { min: extent(sizes)![0], mean: mean(sizes)!, max: extent(sizes)![1] },
    zero_advantage: zero,
    zero_advantage_fraction: multi === 0 ? null : zero / multi,
    zero_advantage_by_reward: [...zeroByReward]
      .map(([reward, c]) => ({ reward, groups: c }))
      .sort((a, b) => b.groups - a.groups || a.reward - b.reward),
    with_unscored: withUnscored,
  };
}
