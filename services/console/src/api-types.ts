// The console's JSON API (console-server.ts) as types: what the server's modules build and what the
// web app (../web/src) reads, defined once. Types only, no runtime imports: the web app's tsconfig and
// its Vite build import this file as it is.

export type { CurvePoint, LiveRun, LiveRunListing, RunCurves } from "@rlfactory/rollout/run-api-types";

// --- GET /api/tools (tools-overview.ts) ----------------------------------------------------------

/** A server's health and breaker, and the calls, errors and latency of its tools (or of one tool). */
export interface CallStats {
  /** The upstream's connection state (ready, connecting, failed, ...); "unknown" if /readyz omits it. */
  health: string;
  breaker: string;
  calls: number;
  errors: number;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
}

export interface ToolRow extends CallStats {
  name: string;
  server: string;
  description: string;
  input_schema: unknown;
  cacheable: boolean;
  idempotent: boolean;
}

/** One upstream server: its health and breaker, and its tools' calls, errors and latency together. */
export interface ServerRow extends CallStats {
  server: string;
}

export interface ToolsOverview {
  gateway_status: string;
  tools: ToolRow[];
  servers: ServerRow[];
}

// --- runs: GET /api/runs/RUN and its trajectories (run-directories.ts, trajectory-detail.ts) --------

export interface TrajectoryListing {
  index: number;
  task_id: string;
  group_id: string;
  sample_index: number;
  status: string;
  reward: number | null;
  advantage: number | null;
  response_tokens: number;
  turns: number;
  tool_calls: number;
}

export interface TraceLink {
  /** metadata.trace_id: set by a rollout that ran with telemetry on. */
  trace_id: string | null;
  /** Jaeger's page of the trace when --jaeger is set and the id is known; else the console's Traces view. */
  url: string;
}

// --- GET /api/runs/RUN/trajectories/N/trace (tool-call-timeline.ts) -------------------------------

export interface TimelineBar {
  name: string;
  start_ms: number;
  duration_ms: number;
  /** The call's error code (record) or the span's error status (Jaeger); null when it succeeded. */
  error: string | null;
  turn: number | null;
  /** Jaeger's span id. */
  span_id?: string;
}

export interface Timeline {
  source: "jaeger" | "record";
  trace_id: string | null;
  /** Why Jaeger was not used though configured (no trace id, unreachable, no such trace). */
  jaeger_error: string | null;
  bars: TimelineBar[];
}

/** The answer: the timeline and where its trace is (TraceLink's url). */
export interface TraceTimeline extends Timeline {
  trace_url: string;
}

// --- GET /api/episodes (episodes-overview.ts) -----------------------------------------------------

export type EpisodeEvent = "started" | "forked" | "ended" | "expired" | "lost";

export interface EpisodeServerRow {
  server: string;
  live: number;
  episodes: { episode_id: string; started_ms: number; ttl_ms: number }[];
  counts: Record<EpisodeEvent, number>;
}

// --- GET /api/bundles, /api/bundles/ID (bundle-directories.ts) ------------------------------------

export interface BundleListing {
  id: string;
  name: string | null;
  form: string | null;
  hash: string | null;
  tools: number;
  tasks: number;
  /** Null when every digest and the hash check; else why not. */
  error: string | null;
  validation: { checked?: unknown; passed?: unknown; repaired?: unknown; dropped?: unknown } | null;
}

export interface BundleDetail extends BundleListing {
  source: unknown;
  tool_list: { name: string; description: string; parameters: unknown }[];
  /** The bundle's tasks (tasks.jsonl's lines, every field; these are the ones the web app shows). */
  task_list: { id: string; question?: string; instruction?: string; tools?: string[] }[];
  validation_report: unknown;
}
