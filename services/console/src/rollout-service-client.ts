// A client of the rollout service's run API (`rlf rollout serve`, services/rollout/src/serve/
// http-server.ts): GET /v1/runs (requests in flight and the last finished) and GET /v1/runs/:id (one
// with its curves). Every answer is checked with zod at this boundary.
import { z } from "zod";

const listing = z.object({
  id: z.string(),
  via: z.string(),
  state: z.enum(["running", "done", "aborted", "failed"]),
  started_at: z.string(),
  elapsed_ms: z.number(),
  tasks: z.number(),
  groups: z.number(),
  trajectories: z.number(),
  trajectories_per_s: z.number(),
  status_counts: z.record(z.string(), z.number()),
  policy_version: z.union([z.string(), z.number()]).nullable(),
});
const curves = z.object({
  points: z.array(
    z.object({
      batch: z.number(),
      trajectories: z.number(),
      scored: z.number(),
      reward_mean: z.number().nullable(),
      success_rate: z.number().nullable(),
    }),
  ),
  trajectories: z.number(),
  status_counts: z.record(z.string(), z.number()),
  turn_reward_mean: z.array(z.number()).nullable(),
  reward_components: z.record(z.string(), z.number()),
});
const runsBody = z.object({ runs: z.array(listing) });
const runBody = listing.extend({ curves });

export type LiveRunListing = z.infer<typeof listing>;
export type LiveRun = z.infer<typeof runBody>;

export class RolloutServiceError extends Error {
  override name = "RolloutServiceError";
}

export class RolloutServiceClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: string, opts: { apiKey?: string } = {}) {
    this.#base = baseUrl.replace(/\/+$/, "");
    this.#headers = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
  }

  get url(): string {
    return this.#base;
  }

  async runs(signal?: AbortSignal): Promise<LiveRunListing[]> {
    return runsBody.parse(await this.#json("/v1/runs", signal)).runs;
  }

  /** Undefined when the service has no such run (never had it, or it was pruned). */
  async run(id: string, signal?: AbortSignal): Promise<LiveRun | undefined> {
    const body = await this.#json(`/v1/runs/${encodeURIComponent(id)}`, signal, [404]);
    return body === undefined ? undefined : runBody.parse(body);
  }

  async #json(path: string, signal?: AbortSignal, absent: number[] = []): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, { headers: this.#headers, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw new RolloutServiceError(
        `rollout service at ${this.#base} unreachable: ${(err as Error).message}`,
      );
    }
    if (absent.includes(res.status)) return undefined;
    if (res.status !== 200) throw new RolloutServiceError(`GET ${path} answered ${res.status}`);
    return res.json();
  }
}
