// The plain-MCP contract between the gateway and an environment server (a tool server that holds
// episode state): the reserved tool names and the handle argument. docs/environments.md is the full
// contract; the TypeScript toolkit (defineEnvironment) and the gateway both import these names.

/** `episode_create {config}` → structuredContent `{episode: HANDLE}`. Its presence marks an environment server. */
export const EPISODE_CREATE_TOOL = "episode_create";
/** `episode_fork {episode, count}` → structuredContent `{episodes: [HANDLE, ...]}` (count new handles). */
export const EPISODE_FORK_TOOL = "episode_fork";
/** `episode_snapshot {episode}` → structuredContent `{state}`; the episode goes on. */
export const EPISODE_SNAPSHOT_TOOL = "episode_snapshot";
/** `episode_close {episode}` → structuredContent `{state}` (the final state); the handle is then unknown. */
export const EPISODE_CLOSE_TOOL = "episode_close";

/**
 * `episode_batch {episode, calls: [{name, arguments, deadline_ms?}]}` → structuredContent
 * `{results: [{result: CallToolResult} | {error: {code, message}}, ...]}`: several calls of the
 * episode's stateful tools in one request, run one after another in order, one entry per call. Optional:
 * a server that lists it gets a CallTools batch on one episode as one request; one that does not gets
 * the calls one by one.
 */
export const EPISODE_BATCH_TOOL = "episode_batch";

/** A batch entry's `error.code` when the call had no result within its `deadline_ms` (the gateway's TIMEOUT). */
export const BATCH_DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED";
/** A batch entry's `error.code` when the call names no stateful tool of the server. */
export const BATCH_UNKNOWN_TOOL = "UNKNOWN_TOOL";

export const RESERVED_EPISODE_TOOLS: readonly string[] = [
  EPISODE_CREATE_TOOL,
  EPISODE_FORK_TOOL,
  EPISODE_SNAPSHOT_TOOL,
  EPISODE_CLOSE_TOOL,
  EPISODE_BATCH_TOOL,
];

/** The string argument that carries the handle, in the reserved tools and in every stateful tool. */
export const EPISODE_HANDLE_ARG = "episode";

/**
 * How a tool error for a handle the server does not hold begins (`isError: true`, first text block):
 * `unknown episode "HANDLE"`. The gateway maps it to EPISODE_LOST (or EPISODE_NOT_FOUND when the id was
 * not live on that gateway).
 */
export const UNKNOWN_EPISODE_PREFIX = "unknown episode";

/**
 * How a tool error for the server's own live-episode limit begins (`episode_create` / `episode_fork`):
 * `episode limit reached: N live, at most M`. The gateway maps it to RATE_LIMITED, like its own limit.
 */
export const EPISODE_LIMIT_PREFIX = "episode limit reached";

/**
 * How a tool error for a state larger than the server sends begins (`episode_snapshot`):
 * `episode state too large: N bytes; the limit is M`. The gateway maps it to OUTPUT_TOO_LARGE.
 */
export const STATE_TOO_LARGE_PREFIX = "episode state too large";
