// Environment episodes for tasks that carry `environment: {server, config}` (docs/environments.md):
// ONE episode per GRPO group, started once and forked into the group's n samples (sample i uses fork
// i); the parent is ended as soon as it is forked. Each sample's episode id goes on its calls to the
// environment server's tools, its state is snapshotted at the end of every user turn, and the episode
// is ended when the trajectory ends, whatever the ending (completed, truncated, failed, aborted): the
// final state is the last snapshot. Snapshots are stored in the trajectory's `metadata.environment`,
// each bounded by `rollout.max_snapshot_bytes`: a state over it is stored as its diff against the
// episode's initial state (state-diff.ts) when that fits, else as a `truncated` marker.

import type { ServiceError } from "@grpc/grpc-js";
import type { GatewayClient } from "@rlfactory/clients";
import { type StateDiff, stateDiff, stateDigest } from "./state-diff.ts";

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

/** Sample i's episode id; `initial()`: the state every sample starts from (undefined when unknown). */
export type GroupEpisodes = ((sampleIndex: number) => Promise<string>) & {
  initial(): Promise<{ state: unknown } | undefined>;
};

/**
 * The episodes of one GRPO group: started and forked once, on the first sample that asks; sample i
 * gets fork i. A failed start or fork fails every sample of the group with the same reason. The
 * parent, ended right after the fork, returns the state its copies start from: their initial state.
 */
export function groupEpisodes(
  api: EpisodeApi,
  environment: { server: string; config: Record<string, unknown> },
  size: number,
): GroupEpisodes {
  let forks: Promise<{ ids: string[]; initial: { state: unknown } | undefined }> | undefined;
  const startAndFork = async () => {
    const parent = await api.start(environment.server, environment.config);
    let ids: string[];
    try {
      ids = await api.fork(parent, size);
      if (ids.length !== size)
        throw new EpisodeError("INTERNAL", `ForkEpisode: ${ids.length} ids for ${size}`);
    } catch (e) {
      await api.end(parent).catch(() => undefined);
      throw e;
    }
    // the parent's own state is never used but as its copies' initial state: only its copies run
    const initial = await api.end(parent).then(
      (state) => ({ state }),
      () => undefined,
    );
    return { ids, initial };
  };
  const started = () => {
    forks ??= startAndFork();
    return forks;
  };
  return Object.assign((i: number) => started().then(({ ids }) => ids[i]!), {
    initial: () => started().then(({ initial }) => initial),
  });
}

/**
 * One stored snapshot: the state after user turn `user_turn`; over the bound, its `diff` against the
 * episode's initial state (`base`: that state's digest and size; `bytes`: the full state's size), or
 * a marker when even the diff is over it.
 */
export type StoredSnapshot =
  | { user_turn: number; final?: true; state: unknown }
  | {
      user_turn: number;
      final?: true;
      diff: StateDiff;
      base: { digest: string; bytes: number };
      bytes: number;
    }
  | { user_turn: number; final?: true; truncated: true; bytes: number };

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null), "utf8");

/**
 * The state as stored: itself when within `maxBytes`; else its diff against `initial` (the episode's
 * initial state, when known) if that is within `maxBytes`; else a `truncated` marker with its size.
 */
export function boundedSnapshot(
  userTurn: number,
  state: unknown,
  maxBytes: number,
  final = false,
  initial?: { state: unknown },
): StoredSnapshot {
  const bytes = jsonBytes(state);
  const base = { user_turn: userTurn, ...(final ? { final: true as const } : {}) };
  if (bytes <= maxBytes) return { ...base, state: state ?? null };
  if (initial !== undefined) {
    const diff = stateDiff(initial.state, state);
    if (jsonBytes(diff) <= maxBytes)
      return {
        ...base,
        diff,
        base: { digest: stateDigest(initial.state), bytes: jsonBytes(initial.state) },
        bytes,
      };
  }
  return { ...base, truncated: true, bytes };
}

/** `metadata.environment` of a trajectory that ran in an episode. */
export interface EnvironmentRecord {
  server: string;
  /** One per finished user turn, in order; the last one (`final: true`) is the state EndEpisode returned. */
  snapshots: StoredSnapshot[];
}
