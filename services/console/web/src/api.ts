// The console server's JSON API, as the views read it (services/console/src).

export interface ToolRow {
  name: string;
  server: string;
  description: string;
  input_schema: unknown;
  cacheable: boolean;
  idempotent: boolean;
  health: string;
  breaker: string;
  calls: number;
  errors: number;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
}

export interface Turn {
  kind: "sampled" | "observation";
  start: number;
  end: number;
}

export interface ToolCall {
  name: string;
  arguments: unknown;
  result: string;
  latency_ms: number;
  error_code: string | null;
  is_error: boolean;
  turn?: number;
}

export interface Trajectory {
  task_id: string;
  group_id: string;
  sample_index: number;
  prompt_ids: number[];
  response_ids: number[];
  loss_mask: (0 | 1)[];
  rollout_logprobs: number[];
  turns: Turn[];
  tool_calls: ToolCall[];
  reward: number | null;
  reward_components: Record<string, number>;
  turn_rewards?: number[];
  advantage?: number | null;
  status: string;
  status_reason: string | null;
}

export interface TokenTexts {
  prompt: string[];
  response: string[];
}

export interface TrajectoryListing {
  index: number;
  task_id: string;
  sample_index: number;
  status: string;
  reward: number | null;
  response_tokens: number;
  tool_calls: number;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, signal ? { signal } : {});
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `${path}: HTTP ${res.status}`);
  return body as T;
}

// Issue 26, the later views: trajectory detail, traces, playground, episodes, bundles.

export interface ServerRow {
  server: string;
  health: string;
  breaker: string;
  calls: number;
  errors: number;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
}

export interface SiblingRow {
  index: number;
  sample_index: number;
  status: string;
  reward: number | null;
  advantage: number | null;
  response_tokens: number;
  turns: number;
  tool_calls: number;
}

export interface SnapshotView {
  user_turn: number;
  final: boolean;
  form: "state" | "diff" | "truncated";
  state?: unknown;
  diff_from_initial?: PatchOp[];
  bytes?: number;
  diff_from_previous: PatchOp[] | null;
}

export interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

export interface TraceLink {
  trace_id: string | null;
  url: string;
}

export interface TimelineBar {
  name: string;
  start_ms: number;
  duration_ms: number;
  error: string | null;
  turn: number | null;
}

export interface Timeline {
  source: "jaeger" | "record";
  trace_id: string | null;
  jaeger_error: string | null;
  trace_url: string;
  bars: TimelineBar[];
}

export interface PlaygroundAnswer {
  status: number;
  result: {
    content?: { type: string; text?: string }[];
    structured_content?: unknown;
    is_error?: boolean;
    error_code?: string;
    error_message?: string;
    error?: { code: string; message: string };
  };
  latency_ms: number | null;
  round_trip_ms: number;
  trace_id: string;
  trace_url: string | null;
}

export interface EpisodeServerRow {
  server: string;
  live: number;
  episodes: { episode_id: string; started_ms: number; ttl_ms: number }[];
  counts: Record<string, number>;
}

export interface BundleListing {
  id: string;
  name: string | null;
  form: string | null;
  hash: string | null;
  tools: number;
  tasks: number;
  error: string | null;
  validation: { checked?: number; passed?: number; repaired?: number; dropped?: number } | null;
}

export interface BundleDetail extends BundleListing {
  source: unknown;
  tool_list: { name: string; description: string; parameters: unknown }[];
  task_list: { id: string; question?: string; instruction?: string; tools?: string[] }[];
  validation_report: unknown;
}

/** POST/DELETE a console API path with a JSON body; the answer's body whatever its status. */
export async function sendJson<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}
