// Environment episodes for tasks that carry `environment: {server, config}` (docs/environments.md):
// ONE episode per GRPO group, started once and forked into the group's n samples (sample i uses fork
// i); the parent is ended as soon as it is forked. Each sample's episode id goes on its calls to the
// environment server's tools, its state is snapshotted at the end of every user turn, and the episode
// is ended when the trajectory ends, whatever the ending (completed, truncated, failed, aborted): the
// final state is the last snapshot. Snapshots are stored in the trajectory's `metadata.environment`,
// each bounded by `rollout.max_snapshot_bytes` (over it: a `truncated` marker instead of the state).

import type { ServiceError } from "@grpc/grpc-js";
import type { GatewayClient } from "@rlfactory/clients";

/** An episode operation failed: `code` is the gateway's (EPISODE_LOST, EPISODE_NOT_FOUND, UNAVAILABLE, ...). */
export class EpisodeError extends Error {
  override name = "EpisodeError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Gateway call codes that end a trajectory instead of being shown to the model: its episode is gone. */
export const EPISODE_GONE_CODES: ReadonlySet<string> = new Set(["EPISODE_LOST", "EPISODE_NOT_FOUND"]);

/** The gateway's episode RPCs; every failure is an EpisodeError. */
export interface EpisodeApi {
  start(server: string, config: Record<string, unknown>): Promise<string>;
  fork(episodeId: string, count: number): Promise<string[]>;
  snapshot(episodeId: string): Promise<unknown>;
  /** Ends the episode; its final state. */
  end(episodeId: string): Promise<unknown>;
}

/** The episode API over a gateway client (gRPC status details start with the gateway's code). */
export function gatewayEpisodes(client: GatewayClient): EpisodeApi {
  const wrap = async <T>(what: string, op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (e) {
      const err = e as ServiceError;
      const details = err.details || err.message || String(e);
      const code = /^([A-Z][A-Z_]+):/.exec(details)?.[1] ?? "UNAVAILABLE";
      throw new EpisodeError(code, `${what}: ${details}`, { cause: e });
    }
  };
  return {
    start: (server, config) => wrap("StartEpisode", () => client.startEpisode(server, config)),
    fork: (id, count) => wrap("ForkEpisode", () => client.forkEpisode(id, count)),
    snapshot: (id) => wrap("SnapshotEpisode", () => client.snapshotEpisode(id)),
    end: (id) => wrap("EndEpisode", () => client.endEpisode(id)),
  };
}

/** A trajectory's line in `failed` status_reason for an episode failure. */
export function episodeFailureReason(e: unknown): string {
  if (e instanceof EpisodeError) return `environment ${e.code}: ${e.message}`;
  return `environment INTERNAL: ${(e as Error).message ?? String(e)}`;
}

/**
 * The episodes of one GRPO group: started and forked once, on the first sample that asks; sample i
 * gets fork i. A failed start or fork fails every sample of the group with the same reason.
 */
export function groupEpisodes(
  api: EpisodeApi,
  environment: { server: string; config: Record<string, unknown> },
  size: number,
): (sampleIndex: number) => Promise<string> {
  let forks: Promise<string[]> | undefined;
  const startAndFork = async (): Promise<string[]> => {
    const parent = await api.start(environment.server, environment.config);
    try {
      const ids = await api.fork(parent, size);
      if (ids.length !== size)
        throw new EpisodeError("INTERNAL", `ForkEpisode: ${ids.length} ids for ${size}`);
      return ids;
    } finally {
      // the parent's own state is never used: only its copies run
      await api.end(parent).catch(() => undefined);
    }
  };
  return (i) => {
    forks ??= startAndFork();
    return forks.then((ids) => ids[i]!);
  };
}

/** One stored snapshot: the state after user turn `user_turn`, or a marker when it was over the bound. */
export type StoredSnapshot =
  | { user_turn: number; final?: true; state: unknown }
  | { user_turn: number; final?: true; truncated: true; bytes: number };

/** The state as stored: itself, or a `truncated` marker with its size when over `maxBytes`. */
export function boundedSnapshot(
  userTurn: number,
  state: unknown,
  maxBytes: number,
  final = false,
): StoredSnapshot {
  const bytes = Buffer.byteLength(JSON.stringify(state ?? null), "utf8");
  const base = { user_turn: userTurn, ...(final ? { final: true as const } : {}) };
  return bytes > maxBytes ? { ...base, truncated: true, bytes } : { ...base, state: state ?? null };
}

/** `metadata.environment` of a trajectory that ran in an episode. */
export interface EnvironmentRecord {
  server: string;
  /** One per finished user turn, in order; the last one (`final: true`) is the state EndEpisode returned. */
  snapshots: StoredSnapshot[];
}
