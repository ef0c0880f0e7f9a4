// The episodes an environment server holds: state behind random handles, with a limit on how many
// live at once and an idle timeout (an abandoned handle does not live forever). Operations on one
// episode run one after another, whoever sends them.
import { randomUUID } from "node:crypto";
import { EPISODE_LIMIT_PREFIX, UNKNOWN_EPISODE_PREFIX } from "@rlfactory/proto/environment-contract";
import { ToolError } from "./tool-error.ts";

export interface EpisodeLimits {
  /** Live episodes at most; creating or forking past it is a tool error. Default 1024. */
  maxEpisodes?: number;
  /** An episode with no operation for this long is dropped. Default 600000 (10 minutes). */
  idleTimeoutMs?: number;
  /** A snapshot whose state is larger than this (as JSON, bytes) is a tool error. Default 16 MiB. */
  maxSnapshotBytes?: number;
  /**
   * The state lives elsewhere, which runs one episode's operations in the order they are sent (one
   * pipe to one process): an operation is sent at once, without waiting for the one before it to
   * answer, so a batch's calls leave together. Default false: each operation starts once the previous
   * one has settled.
   */
  pipeline?: boolean;
}

export const DEFAULT_EPISODE_LIMITS: Required<EpisodeLimits> = {
  maxEpisodes: 1_024,
  idleTimeoutMs: 600_000,
  maxSnapshotBytes: 16 * 1024 * 1024,
  pipeline: false,
};

interface Episode<S> {
  state: S;
  idle: NodeJS.Timeout;
  /** The tail of this episode's operations: each starts when the previous one has settled. */
  tail: Promise<unknown>;
}

export class EpisodeStore<S> {
  readonly limits: Required<EpisodeLimits>;
  #episodes = new Map<string, Episode<S>>();
  /** Room held for episodes being made (`reserve`). */
  #reserved = 0;

  readonly #drop: ((state: S) => void) | undefined;

  /** `drop` releases an episode that goes without being closed (idle expiry, `clear`). */
  constructor(limits: EpisodeLimits = {}, drop?: (state: S) => void) {
    this.limits = { ...DEFAULT_EPISODE_LIMITS, ...limits };
    this.#drop = drop;
  }

  get size(): number {
    return this.#episodes.size;
  }

  /** Throws a tool error when `n` more episodes (beyond those live or reserved) would pass the limit. */
  checkRoom(n: number): void {
    if (this.#episodes.size + this.#reserved + n > this.limits.maxEpisodes) {
      throw new ToolError(
        `${EPISODE_LIMIT_PREFIX}: ${this.#episodes.size} live${this.#reserved > 0 ? ` and ${this.#reserved} being made` : ""}, at most ${this.limits.maxEpisodes}`,
      );
    }
  }

  /**
   * Holds room for `n` episodes while they are made (concurrent creates and forks cannot all pass
   * the limit); a tool error when there is none. Call the returned function once they are added.
   */
  reserve(n: number): () => void {
    this.checkRoom(n);
    this.#reserved += n;
    let held = true;
    return () => {
      if (held) this.#reserved -= n;
      held = false;
    };
  }

  /** Holds `state` under a new handle; `reserved`: its room is already held by `reserve`. */
  add(state: S, reserved = false): string {
    if (!reserved) this.checkRoom(1);
    const handle = randomUUID();
    const idle = setTimeout(() => {
      const episode = this.#episodes.get(handle);
      this.#episodes.delete(handle);
      if (episode) this.#release(episode);
    }, this.limits.idleTimeoutMs).unref();
    this.#episodes.set(handle, { state, idle, tail: Promise.resolve() });
    return handle;
  }

  /**
   * Runs `op` on the episode's state after its earlier operations (with `pipeline`: calls it now, the
   * state's own process keeping the order); a tool error for an unknown handle.
   */
  run<T>(handle: string, op: (state: S) => Promise<T> | T): Promise<T> {
    const episode = this.#get(handle);
    episode.idle.refresh();
    if (this.limits.pipeline) {
      const result = (async () => op(episode.state))();
      episode.tail = Promise.all([episode.tail, result.catch(() => {})]);
      return result;
    }
    const result = episode.tail.then(() => op(episode.state));
    episode.tail = result.catch(() => {});
    return result;
  }

  /** Runs `op` as the episode's last operation, then drops it. */
  async close<T>(handle: string, op: (state: S) => Promise<T> | T): Promise<T> {
    const episode = this.#get(handle);
    this.#episodes.delete(handle);
    clearTimeout(episode.idle);
    await episode.tail;
    return op(episode.state);
  }

  clear(): void {
    const dropped = [...this.#episodes.values()];
    this.#episodes.clear();
    for (const e of dropped) {
      clearTimeout(e.idle);
      this.#release(e);
    }
  }

  /** Hands a dropped episode's state to `drop` once its operations have settled. */
  #release(episode: Episode<S>): void {
    const drop = this.#drop;
    if (drop) void episode.tail.then(() => drop(episode.state));
  }

  #get(handle: string): Episode<S> {
    const episode = this.#episodes.get(handle);
    if (!episode) throw new ToolError(`${UNKNOWN_EPISODE_PREFIX} ${JSON.stringify(handle)}`);
    return episode;
  }
}
