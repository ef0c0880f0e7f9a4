// The rollout service's requests as runs a person can watch (GET /v1/runs, GET /v1/runs/:id; the
// console polls them): each request from its start, with its progress (groups done of tasks sent),
// throughput, status breakdown and curves as groups complete, until it ends; the last finished ones
// are kept (the newest `keepFinished`), the ones in flight always.
import { randomUUID } from "node:crypto";
import type { Trajectory } from "@rlfactory/contracts";
import { RunCurveTally } from "../report/run-curves.ts";
import type { LiveRun, LiveRunListing, LiveRunState } from "./run-api-types.ts";

interface Entry {
  id: string;
  via: string;
  tasks: number;
  policyVersion: string | number | null;
  startedAt: Date;
  started: number;
  ended?: number;
  state: LiveRunState;
  tally: RunCurveTally;
  groups: number;
}

export class RunTracker {
  readonly #runs = new Map<string, Entry>();
  readonly #keepFinished: number;

  constructor(opts: { keepFinished?: number } = {}) {
    this.#keepFinished = opts.keepFinished ?? 20;
  }

  /** Records a request's start; call the returned handle as groups complete and when it ends. */
  start(via: string, tasks: number, policyVersion: string | number | null): RunHandle {
    const entry: Entry = {
      id: randomUUID(),
      via,
      tasks,
      policyVersion,
      startedAt: new Date(),
      started: performance.now(),
      state: "running",
      tally: new RunCurveTally(),
      groups: 0,
    };
    this.#runs.set(entry.id, entry);
    return {
      id: entry.id,
      group: (trajectories) => {
        entry.groups += 1;
        entry.tally.addGroup(trajectories);
      },
      end: (state) => {
        entry.state = state;
        entry.ended = performance.now();
        this.#prune();
      },
    };
  }

  /** Runs in flight first, then finished ones, newest first. */
  list(): LiveRunListing[] {
    return [...this.#runs.values()]
      .sort((a, b) => Number(b.state === "running") - Number(a.state === "running") || b.started - a.started)
      .map((e) => listing(e));
  }

  get(id: string): LiveRun | undefined {
    const e = this.#runs.get(id);
    return e === undefined ? undefined : { ...listing(e), curves: e.tally.curves() };
  }

  #prune(): void {
    const finished = [...this.#runs.values()].filter((e) => e.state !== "running");
    finished.sort((a, b) => b.started - a.started);
    for (const e of finished.slice(this.#keepFinished)) this.#runs.delete(e.id);
  }
}

export interface RunHandle {
  id: string;
  group(trajectories: readonly Trajectory[]): void;
  end(state: Exclude<LiveRunState, "running">): void;
}

function listing(e: Entry): LiveRunListing {
  const elapsed = (e.ended ?? performance.now()) - e.started;
  const trajectories = e.tally.trajectories;
  return {
    id: e.id,
    via: e.via,
    state: e.state,
    started_at: e.startedAt.toISOString(),
    elapsed_ms: Math.round(elapsed),
    tasks: e.tasks,
    groups: e.groups,
    trajectories,
    trajectories_per_s: elapsed > 0 ? (trajectories * 1000) / elapsed : 0,
    status_counts: e.tally.statusCounts,
    policy_version: e.policyVersion,
  };
}
