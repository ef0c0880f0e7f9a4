// The build's input: seed questions (with their gold answers) from task files our loaders read
// (HotpotQA, NQ, FlashRAG or our JSONL/Parquet tasks), and free-text scenario descriptions. Each seed's
// id is a hash of its content, so the same input gives the same ids in every run.
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { goldAnswers, type Task } from "@rlfactory/contracts";
import { loadTasks } from "@rlfactory/rollout";
import type { BuildConfig } from "./build-config.ts";

export interface Seed {
  /** `t` + 12 hex digits of the content hash; also the id of the task made from it. */
  id: string;
  question?: string;
  answer?: string;
  scenario?: string;
  /** For a scenario: which of its `counts.questions_per_scenario` questions this is (1-based). */
  variant?: { index: number; of: number };
  /** Where it came from: the task file and row id, or the scenario's index. */
  source: { file?: string; task?: string; scenario?: number };
}

export function contentId(prefix: string, ...parts: string[]): string {
  return `${prefix}${createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 12)}`;
}

function questionOf(task: Task): string | undefined {
  const q = task.extra_info.question;
  if (typeof q === "string" && q.trim() !== "") return q.trim();
  const user = task.prompt.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" && user.content.trim() !== "" ? user.content.trim() : undefined;
}

/** The seeds of a config, task rows first (file by file), then scenarios; at most `counts.seeds`. */
export async function loadSeeds(config: BuildConfig): Promise<Seed[]> {
  const seeds: Seed[] = [];
  for (const file of config.input.tasks) {
    const tasks = await loadTasks({
      path: file.path,
      format: file.format,
      offset: file.offset,
      ...(file.limit !== undefined ? { limit: file.limit } : {}),
      ...(file.shuffle_seed !== undefined ? { shuffle_seed: file.shuffle_seed } : {}),
    });
    for (const task of tasks) {
      const question = questionOf(task);
      if (question === undefined) continue;
      const answer = goldAnswers(task)[0];
      seeds.push({
        id: contentId("t", "question", question, answer ?? ""),
        question,
        ...(answer !== undefined ? { answer } : {}),
        source: { file: basename(file.path), task: task.id },
      });
    }
  }
  const of = config.counts.questions_per_scenario;
  for (const [i, scenario] of config.input.scenarios.entries())
    for (let index = 1; index <= of; index++)
      seeds.push({
        id: contentId("t", "scenario", scenario, ...(of > 1 ? [`${index}/${of}`] : [])),
        scenario,
        ...(of > 1 ? { variant: { index, of } } : {}),
        source: { scenario: i },
      });
  return config.counts.seeds === undefined ? seeds : seeds.slice(0, config.counts.seeds);
}
