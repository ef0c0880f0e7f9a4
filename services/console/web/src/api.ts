// The console server's JSON API, as the views read it (services/console/src): the answers' types
// come from the server's type-only ../../src/api-types.ts; the record types below mirror contracts.
export type {
  BundleDetail,
  BundleListing,
  CallStats,
  CurvePoint,
  EpisodeServerRow,
  LiveRun,
  LiveRunListing,
  RunCurves,
  ServerRow,
  ToolRow,
  TraceLink,
  TraceTimeline,
  TrajectoryListing,
} from "../../src/api-types.ts";

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

/** A tool-result image of the record (contracts: trajectoryImageSchema; docs/images.md). */
export interface TrajectoryImage {
  sha256: string;
  mime_type: string;
  path: string;
  width: number;
  height: number;
  shown: "full" | "downscaled" | "dropped" | "text";
  tool_call: number;
  turn: number;
  start?: number;
  end?: number;
  source_sha256?: string;
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
  images?: TrajectoryImage[];
}

export interface TokenTexts {
  prompt: string[];
  response: string[];
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const inlined = staticExport();
  if (inlined) {
    if (path in inlined.responses) return inlined.responses[path] as T;
    throw new Error(`${path} is not part of this report`);
  }
  const sent = sessionStorage.getItem(KEY_ITEM);
  let res = await fetch(path, withKey(signal));
  // Refused: retry with a key given meanwhile (for another request), else ask for one.
  if (res.status === 401 && (sessionStorage.getItem(KEY_ITEM) !== sent || (await askForKey()))) {
    res = await fetch(path, withKey(signal));
  }
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `${path}: HTTP ${res.status}`);
  return body as T;
}

/**
 * An image under /api as a URL an <img> can show: fetched with the API key (an <img> cannot send it)
 * into an object URL; in report.html, the data URL inlined; null when the report left it out.
 */
export async function imageUrl(path: string, signal?: AbortSignal): Promise<string | null> {
  const inlined = staticExport();
  if (inlined) {
    const url = inlined.responses[path];
    return typeof url === "string" ? url : null;
  }
  const sent = sessionStorage.getItem(KEY_ITEM);
  let res = await fetch(path, withKey(signal));
  if (res.status === 401 && (sessionStorage.getItem(KEY_ITEM) !== sent || (await askForKey()))) {
    res = await fetch(path, withKey(signal));
  }
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return URL.createObjectURL(await res.blob());
}

// Issue 26, the later views: trajectory detail, traces, playground, episodes, bundles.

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

/** POST/DELETE a console API path with a JSON body; the answer's body whatever its status. */
export async function sendJson<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const init = (): RequestInit => {
    const auth = withKey().headers as Record<string, string> | undefined;
    return {
      method,
      headers: { ...auth, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    };
  };
  let res = await fetch(path, init());
  if (res.status === 401 && (await askForKey())) res = await fetch(path, init());
  return { status: res.status, body: (await res.json()) as T };
}

// --- runs: curves, live runs (the rollout service), the static report ---------------------------

/**
 * A static export (report.html): the API answers the page needs, inlined by the console's
 * writeRunReport, and the path to show. Absent when the app is served by `rlf console`.
 */
export interface StaticExport {
  path: string;
  responses: Record<string, unknown>;
}

export function staticExport(): StaticExport | undefined {
  return (globalThis as { __RLF_STATIC__?: StaticExport }).__RLF_STATIC__;
}

/** The parts of a run's summary.json (services/rollout/src/report/summary.ts) the Run view shows. */
export interface RunSummary {
  started_at: string | null;
  wall_ms: number;
  config: Record<string, unknown> | null;
  trajectories: number;
  status_reasons: { status: string; reason: string; count: number }[];
  reward: { scored: number; unscored: number; mean: number | null; std: number | null };
  exact_match: number | null;
  tool_calls: {
    total: number;
    errors: number;
    by_tool: {
      name: string;
      count: number;
      errors: number;
      latency_ms: { p50: number; p95: number; p99: number; max: number } | null;
    }[];
    by_error_code: { code: string; count: number }[];
  };
  tokens: { prompt: number; sampled: number; observation: number };
  throughput: { trajectories_per_s: number | null; sampled_tokens_per_s: number | null };
  groups: { groups: number; multi_sample: number; zero_advantage: number; with_unscored: number } | null;
}

// --- the API key (`rlf console --api-keys-env`, bound beyond loopback) ---------------------------

const KEY_ITEM = "rlf-console-api-key";
let asking: Promise<boolean> | undefined;

function withKey(signal?: AbortSignal): RequestInit {
  const key = sessionStorage.getItem(KEY_ITEM);
  return { ...(signal && { signal }), ...(key && { headers: { authorization: `Bearer ${key}` } }) };
}

/** Asks once (for all the requests that were refused meanwhile); false when no key was given. */
function askForKey(): Promise<boolean> {
  asking ??= Promise.resolve().then(() => {
    const key = prompt("This console needs an API key")?.trim();
    if (key) sessionStorage.setItem(KEY_ITEM, key);
    asking = undefined;
    return Boolean(key);
  });
  return asking;
}
