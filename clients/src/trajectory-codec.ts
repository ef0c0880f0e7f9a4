// Trajectories and groups on the wire: the JSON record of trajectory.ts ↔ the rlfactory.v1 proto
// messages (gRPC), and a group's HTTP JSON form.
//
// What the proto form changes, on purpose:
//   * rollout_logprobs are float32 on the wire (what inference engines compute): each value comes back
//     as the nearest float32, `Math.fround(x)`; every other number is exact.
//   * policy_version is text: a number is sent as its decimal text, and text that is exactly a safe
//     integer's decimal form decodes back to a number, so a version *string* like `"7"` comes back as 7.
//   * presence replaces null: an absent advantage / reward_error decodes as null (same meaning as a
//     missing key); an absent turn or tool-call optional, an empty turn_rewards or metadata, as no key;
//     group stats that are null (no scored reward) are absent on the wire, and an empty
//     turn_reward_mean decodes as no key.
// Decoding validates with `trajectorySchema`, so a decoded record keeps every invariant of the JSON one.

import {
  policyVersionFromText,
  type ToolCallRecord,
  type Trajectory,
  type TrajectoryGroup,
  type TrajectoryGroupStats,
  type TrajectoryImage,
  type TrajectoryStatus,
  type Turn,
  trajectorySchema,
} from "@rlfactory/contracts";
import type { GroupStats as ProtoGroupStats } from "@rlfactory/proto/types/GroupStats";
import type {
  ToolCallRecord as ProtoToolCall,
  ToolCallRecord__Output as ProtoToolCallOut,
} from "@rlfactory/proto/types/ToolCallRecord";
import type {
  Trajectory as ProtoTrajectory,
  Trajectory__Output as ProtoTrajectoryOut,
} from "@rlfactory/proto/types/Trajectory";
import type {
  TrajectoryGroup as ProtoGroup,
  TrajectoryGroup__Output as ProtoGroupOut,
} from "@rlfactory/proto/types/TrajectoryGroup";
import type {
  TrajectoryImage as ProtoImage,
  TrajectoryImage__Output as ProtoImageOut,
} from "@rlfactory/proto/types/TrajectoryImage";
import type { TrajectoryStatus__Output as ProtoStatus } from "@rlfactory/proto/types/TrajectoryStatus";
import type { Turn as ProtoTurn, Turn__Output as ProtoTurnOut } from "@rlfactory/proto/types/Turn";
import type { TurnKind__Output as ProtoTurnKind } from "@rlfactory/proto/types/TurnKind";

const STATUS_TO_PROTO = {
  completed: "TRAJECTORY_STATUS_COMPLETED",
  truncated: "TRAJECTORY_STATUS_TRUNCATED",
  aborted: "TRAJECTORY_STATUS_ABORTED",
  failed: "TRAJECTORY_STATUS_FAILED",
} as const satisfies Record<TrajectoryStatus, ProtoStatus>;

const TURN_KIND_TO_PROTO = {
  sampled: "TURN_KIND_SAMPLED",
  observation: "TURN_KIND_OBSERVATION",
} as const satisfies Record<Turn["kind"], ProtoTurnKind>;

/** A malformed proto message (an unspecified enum, bad JSON text, a broken record invariant). */
export class TrajectoryDecodeError extends Error {
  override name = "TrajectoryDecodeError";
}

// --- JSON record → proto ------------------------------------------------------------------------

export function trajectoryToProto(t: Trajectory): ProtoTrajectory {
  const out: ProtoTrajectory = {
    schema_version: t.schema_version,
    task_id: t.task_id,
    group_id: t.group_id,
    sample_index: t.sample_index,
    prompt_ids: t.prompt_ids,
    response_ids: t.response_ids,
    loss_mask: t.loss_mask,
    rollout_logprobs: t.rollout_logprobs,
    turns: t.turns.map(turnToProto),
    tool_calls: t.tool_calls.map(toolCallToProto),
    reward_components: t.reward_components,
    reward_error: t.reward_error ?? null,
    turn_rewards: t.turn_rewards ?? [],
    status: STATUS_TO_PROTO[t.status],
    timings: t.timings,
    metadata_json: t.metadata === undefined ? "" : JSON.stringify(t.metadata),
    images: (t.images ?? []).map(imageToProto),
  };
  if (t.policy_version !== null) out.policy_version = String(t.policy_version);
  if (t.reward !== null) out.reward = t.reward;
  if (t.advantage != null) out.advantage = t.advantage;
  if (t.status_reason !== null) out.status_reason = t.status_reason;
  if (t.stale === true) out.stale = true;
  if (t.logprobs_kind !== undefined) out.logprobs_kind = t.logprobs_kind;
  if (t.sampling_temperature !== undefined) out.sampling_temperature = t.sampling_temperature;
  return out;
}

function turnToProto(turn: Turn): ProtoTurn {
  const out: ProtoTurn = { kind: TURN_KIND_TO_PROTO[turn.kind], start: turn.start, end: turn.end };
  if (turn.policy_version != null) out.policy_version = String(turn.policy_version);
  return out;
}

function toolCallToProto(c: ToolCallRecord): ProtoToolCall {
  const out: ProtoToolCall = {
    name: c.name,
    arguments_json: c.arguments === undefined ? "" : JSON.stringify(c.arguments),
    result: c.result,
    latency_ms: c.latency_ms,
    is_error: c.is_error,
  };
  if (c.error_code !== null) out.error_code = c.error_code;
  if (c.turn !== undefined) out.turn = c.turn;
  if (c.usage !== undefined) out.usage = c.usage;
  return out;
}

function imageToProto(i: TrajectoryImage): ProtoImage {
  const { start, end, source_sha256, ...rest } = i;
  return {
    ...rest,
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(source_sha256 === undefined ? {} : { source_sha256 }),
  };
}

function imageFromProto(p: ProtoImageOut): TrajectoryImage {
  return {
    sha256: p.sha256,
    mime_type: p.mime_type,
    path: p.path,
    width: p.width,
    height: p.height,
    shown: p.shown as TrajectoryImage["shown"],
    tool_call: p.tool_call,
    turn: p.turn,
    ...(p.start === undefined ? {} : { start: p.start }),
    ...(p.end === undefined ? {} : { end: p.end }),
    ...(p.source_sha256 === undefined ? {} : { source_sha256: p.source_sha256 }),
  };
}

export function groupToProto(g: TrajectoryGroup): ProtoGroup {
  return {
    task_id: g.taskId,
    group_id: g.groupId,
    trajectories: g.trajectories.map(trajectoryToProto),
    stats: statsToProto(g.stats),
    dropped_stale: g.droppedStale ?? 0,
  };
}

function statsToProto(s: TrajectoryGroupStats): ProtoGroupStats {
  const out: ProtoGroupStats = {
    count: s.count,
    scored: s.scored,
    all_equal: s.all_equal,
    turn_reward_mean: s.turn_reward_mean ?? [],
  };
  if (s.mean !== null) out.mean = s.mean;
  if (s.std !== null) out.std = s.std;
  if (s.min !== null) out.min = s.min;
  if (s.max !== null) out.max = s.max;
  return out;
}

// --- proto → JSON record ------------------------------------------------------------------------

/** Decodes and validates one trajectory; throws TrajectoryDecodeError naming what is wrong. */
export function trajectoryFromProto(p: ProtoTrajectoryOut): Trajectory {
  const record = {
    schema_version: p.schema_version,
    task_id: p.task_id,
    group_id: p.group_id,
    sample_index: p.sample_index,
    policy_version: p.policy_version === undefined ? null : policyVersionFromText(p.policy_version),
    prompt_ids: p.prompt_ids,
    response_ids: p.response_ids,
    loss_mask: p.loss_mask,
    rollout_logprobs: p.rollout_logprobs,
    ...(p.logprobs_kind === undefined ? {} : { logprobs_kind: p.logprobs_kind }),
    ...(p.sampling_temperature === undefined ? {} : { sampling_temperature: p.sampling_temperature }),
    turns: p.turns.map(turnFromProto),
    tool_calls: p.tool_calls.map(toolCallFromProto),
    reward: p.reward ?? null,
    reward_components: p.reward_components,
    reward_error: p.reward_error ?? null,
    ...(p.turn_rewards.length > 0 ? { turn_rewards: p.turn_rewards } : {}),
    advantage: p.advantage ?? null,
    status: enumFromProto(STATUS_TO_PROTO, p.status, "status"),
    status_reason: p.status_reason ?? null,
    timings: p.timings,
    ...(p.metadata_json === "" ? {} : { metadata: jsonFromText(p.metadata_json, "metadata_json") }),
    ...(p.stale ? { stale: true } : {}),
    ...(p.images.length > 0 ? { images: p.images.map(imageFromProto) } : {}),
  };
  const parsed = trajectorySchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TrajectoryDecodeError(
      `trajectory ${p.task_id}/${p.sample_index}: ${issue?.path.join(".")}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

function turnFromProto(p: ProtoTurnOut): Turn {
  const turn: Turn = {
    kind: enumFromProto(TURN_KIND_TO_PROTO, p.kind, "turn kind"),
    start: p.start,
    end: p.end,
  };
  if (p.policy_version !== undefined) turn.policy_version = policyVersionFromText(p.policy_version);
  return turn;
}

function toolCallFromProto(p: ProtoToolCallOut): ToolCallRecord {
  const call: ToolCallRecord = {
    name: p.name,
    arguments: p.arguments_json === "" ? undefined : jsonFromText(p.arguments_json, "arguments_json"),
    result: p.result,
    latency_ms: p.latency_ms,
    error_code: p.error_code ?? null,
    is_error: p.is_error,
  };
  if (p.turn !== undefined) call.turn = p.turn;
  if (p.usage != null) {
    const { prompt_tokens, completion_tokens, cost_usd, model } = p.usage;
    call.usage = { prompt_tokens, completion_tokens, model, ...(cost_usd == null ? {} : { cost_usd }) };
  }
  return call;
}

/** Decodes and validates a group (every trajectory, and the stats it must carry). */
export function groupFromProto(p: ProtoGroupOut): TrajectoryGroup {
  if (p.stats === null) throw new TrajectoryDecodeError(`group ${p.group_id}: no stats`);
  const { count, scored, mean, std, min, max, all_equal, turn_reward_mean } = p.stats;
  return {
    taskId: p.task_id,
    groupId: p.group_id,
    trajectories: p.trajectories.map(trajectoryFromProto),
    stats: {
      count,
      scored,
      mean: mean ?? null,
      std: std ?? null,
      min: min ?? null,
      max: max ?? null,
      all_equal,
      ...(turn_reward_mean.length > 0 ? { turn_reward_mean } : {}),
    },
    ...(p.dropped_stale > 0 ? { droppedStale: p.dropped_stale } : {}),
  };
}

// --- HTTP JSON ----------------------------------------------------------------------------------

/** A group as the HTTP API sends it: snake_case like the records it holds (which are sent unchanged). */
export interface TrajectoryGroupJson {
  task_id: string;
  group_id: string;
  trajectories: Trajectory[];
  stats: TrajectoryGroupStats;
  /** Trajectories dropped as stale (the whole group's); 0: none. */
  dropped_stale: number;
}

export function groupToJson(g: TrajectoryGroup): TrajectoryGroupJson {
  return {
    task_id: g.taskId,
    group_id: g.groupId,
    trajectories: g.trajectories,
    stats: g.stats,
    dropped_stale: g.droppedStale ?? 0,
  };
}

// --- helpers ------------------------------------------------------------------------------------

function enumFromProto<K extends string, V extends string>(
  table: Record<K, V>,
  value: string,
  what: string,
): K {
  for (const [key, wire] of Object.entries(table) as [K, V][]) if (wire === value) return key;
  throw new TrajectoryDecodeError(`${what} ${value} is not one of ${Object.values(table).join(", ")}`);
}

function jsonFromText(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TrajectoryDecodeError(`${field} is not JSON: ${(e as Error).message}`);
  }
}
