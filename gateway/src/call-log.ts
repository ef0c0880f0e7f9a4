// The call log: per trajectory id, the calls the gateway served, read back on the admin port with
// `GET /v1/calls?trajectory=T` (docs/gateway.md, "Call log"). `rlf rollout agent` joins it into an
// agent's record, since an agent shows the model a failed call's text but not that it failed.
//
// It subscribes to the invoker's `call` event, so every surface is logged alike: `/mcp` (the trajectory
// from `rlf_trajectory` in the URL or `_meta["rlfactory/trajectory_id"]`), gRPC CallTool/CallTools
// (`trajectory_id`) and `POST /v1/tools/{name}:call`. Calls without a trajectory id are not logged.
//
// Bounded three ways (config `call_log`):
//   max_calls_per_trajectory   the first N calls of a trajectory are kept, later ones only counted
//                              (`dropped`), so what is kept is always a prefix in order
//   max_trajectories           past it the trajectory least recently called is forgotten (0: log off)
//   ttl_ms                     a trajectory not called for this long is forgotten
// Arguments are kept as a digest (`argumentsSha256`), never as values: the log holds no payloads. A call
// refused for its arguments' depth or size is logged too (the model's doing, which a reward must see),
// with an empty digest when its arguments are too deep or too long to hash safely.
import type { GatewayCallLog, GatewayLoggedCall } from "@rlfactory/clients/gateway-call-log";
import { argumentsSha256 } from "@rlfactory/kit";
import { exceedsDepth } from "./argument-depth.ts";
import type { CallOutcome, CallRequest } from "./invoker.ts";

/** Arguments nested deeper than this, or JSON text longer, get no digest (`""`): hashing them recurses. */
const MAX_DIGEST_DEPTH = 512;
const MAX_DIGEST_TEXT = 4 * 1024 * 1024;

export interface CallLogLimits {
  maxCallsPerTrajectory: number;
  maxTrajectories: number;
  ttlMs: number;
}

interface TrajectoryCalls {
  calls: GatewayLoggedCall[];
  /** Calls finished so far, kept or not (the next call's `seq`). */
  seen: number;
  /** When the last call finished (the clock's milliseconds). */
  lastMs: number;
}

export class CallLog {
  readonly #limits: CallLogLimits;
  readonly #now: () => number;
  /** Least recently called first: each call moves its trajectory to the end. */
  readonly #byTrajectory = new Map<string, TrajectoryCalls>();

  /** `now`: the clock of `started_ms` and the TTL (milliseconds; default `Date.now`). */
  constructor(limits: CallLogLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** How many trajectories the log holds now. */
  get trajectories(): number {
    this.#expire();
    return this.#byTrajectory.size;
  }

  /** Logs one finished call (the invoker's `call` event). */
  record(outcome: CallOutcome, req: CallRequest): void {
    const trajectory = req.trajectoryId;
    if (trajectory === "" || this.#limits.maxTrajectories === 0) return;
    const now = this.#now();
    this.#expire(now);
    let entry = this.#byTrajectory.get(trajectory);
    if (entry !== undefined) this.#byTrajectory.delete(trajectory); // re-inserted: the most recent last
    entry ??= { calls: [], seen: 0, lastMs: now };
    entry.lastMs = now;
    this.#byTrajectory.set(trajectory, entry);
    while (this.#byTrajectory.size > this.#limits.maxTrajectories) {
      const oldest = this.#byTrajectory.keys().next().value;
      if (oldest === undefined) break;
      this.#byTrajectory.delete(oldest);
    }
    const seq = entry.seen++;
    if (entry.calls.length >= this.#limits.maxCallsPerTrajectory) return;
    entry.calls.push({
      seq,
      name: outcome.name,
      server: outcome.server ?? null,
      call_id: outcome.callId,
      arguments_sha256: digest(req),
      error_code: outcome.error?.code ?? "OK",
      error_message: outcome.error?.message ?? "",
      is_error: outcome.output?.isError ?? false,
      latency_ms: outcome.latencyMs,
      cache_hit: outcome.cacheHit,
      attempts: outcome.attempts,
      started_ms: Math.round(now - outcome.latencyMs),
    });
  }

  /** The trajectory's calls in the order they finished (none for an unknown or expired trajectory). */
  list(trajectory: string): GatewayCallLog {
    this.#expire();
    const entry = this.#byTrajectory.get(trajectory);
    return {
      trajectory,
      calls: entry?.calls.map((c) => ({ ...c })) ?? [],
      dropped: entry === undefined ? 0 : entry.seen - entry.calls.length,
    };
  }

  /** Forgets the trajectories not called within the TTL (they are first in the map's order). */
  #expire(now = this.#now()): void {
    for (const [trajectory, entry] of this.#byTrajectory) {
      if (now - entry.lastMs < this.#limits.ttlMs) return;
      this.#byTrajectory.delete(trajectory);
    }
  }
}

/**
 * The digest of the arguments as the caller sent them: the parsed value (HTTP, `/mcp`) or the JSON text
 * (gRPC; empty text is `{}`, text that is not JSON is digested as the string it is).
 */
function digest(req: CallRequest): string {
  let value: unknown = req.argumentsValue;
  if (value === undefined) {
    const text = req.argumentsJson;
    if (text.length > MAX_DIGEST_TEXT) return "";
    try {
      value = text.trim() === "" ? {} : (JSON.parse(text) as unknown);
    } catch {
      value = text;
    }
  }
  return exceedsDepth(value, MAX_DIGEST_DEPTH) ? "" : argumentsSha256(value);
}
