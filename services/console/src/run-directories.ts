// Finished rollout runs as `rlf rollout --out DIR` leaves them (services/cli/src/rollout-command.ts):
// each run a directory under the console's --runs folder holding trajectories.jsonl (or only
// trajectories.parquet, as a trainer's copy may) and summary.json.
// A run's id is its directory name; nothing outside the folder can be named.
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Trajectory } from "@rlfactory/contracts";
import { readTrajectoriesJsonl, readTrajectoriesParquet } from "@rlfactory/rollout";
import type { TrajectoryListing } from "./api-types.ts";
import { type RunImage, readRunImage } from "./run-images.ts";

export interface RunListing {
  id: string;
  trajectories: boolean;
  summary: unknown;
  /** trajectories.jsonl without summary.json: `rlf rollout` is still writing it. */
  in_progress: boolean;
  modified_ms: number;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class RunDirectories {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /** Runs newest first; a folder that does not exist yet has none. */
  async list(): Promise<RunListing[]> {
    const entries = await readdir(this.#root, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [];
      throw err;
    });
    const runs: RunListing[] = [];
    for (const e of entries) {
      if (!e.isDirectory() || !RUN_ID.test(e.name)) continue;
      const dir = join(this.#root, e.name);
      const hasTrajectories = trajectoriesFile(dir) !== undefined;
      const summary = await readJson(join(dir, "summary.json"));
      if (!hasTrajectories && summary === undefined) continue;
      runs.push({
        id: e.name,
        trajectories: hasTrajectories,
        summary: summary ?? null,
        in_progress: summary === undefined,
        modified_ms: (await stat(dir)).mtimeMs,
      });
    }
    return runs.sort((a, b) => b.modified_ms - a.modified_ms);
  }

  /** Undefined when no such run. */
  async summary(id: string): Promise<unknown> {
    const dir = this.#dir(id);
    return dir === undefined ? undefined : ((await readJson(join(dir, "summary.json"))) ?? null);
  }

  /** The run's trajectories in file order (JSONL, else Parquet); undefined when no such run. */
  async trajectories(id: string): Promise<Trajectory[] | undefined> {
    const dir = this.#dir(id);
    const file = dir === undefined ? undefined : trajectoriesFile(dir);
    if (file === undefined) return undefined;
    return file.endsWith(".parquet") ? readTrajectoriesParquet(file) : readTrajectoriesJsonl(file);
  }

  /** The run's stored image with this hash (`images/<sha256>.<ext>`); undefined when none. */
  async image(id: string, sha256: string): Promise<RunImage | undefined> {
    const dir = this.#dir(id);
    return dir === undefined ? undefined : readRunImage(dir, sha256);
  }

  #dir(id: string): string | undefined {
    if (!RUN_ID.test(id)) return undefined;
    const dir = join(this.#root, id);
    return existsSync(dir) ? dir : undefined;
  }
}

export function listTrajectories(trajectories: readonly Trajectory[]): TrajectoryListing[] {
  return trajectories.map((t, index) => ({
    index,
    task_id: t.task_id,
    group_id: t.group_id,
    sample_index: t.sample_index,
    status: t.status,
    reward: t.reward,
    advantage: t.advantage ?? null,
    response_tokens: t.response_ids.length,
    turns: t.turns.length,
    tool_calls: t.tool_calls.length,
  }));
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** trajectories.jsonl (written as groups complete), else trajectories.parquet; undefined when neither. */
function trajectoriesFile(dir: string): string | undefined {
  for (const name of ["trajectories.jsonl", "trajectories.parquet"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
