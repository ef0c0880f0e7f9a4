// The files of a training run's out dir besides checkpoint.json: `metrics.jsonl` (one line per
// completed step) and `trajectories/step-NNNNNN.jsonl` (each step's trajectories). When a run starts or
// resumes, whatever came after its checkpoint (steps a killed run finished but never checkpointed, a
// step it was in the middle of) is removed, so every step appears once however often the run resumed.
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Trajectory } from "@rlfactory/contracts";
import { appendTrajectoriesJsonl } from "@rlfactory/rollout";
import type { StepMetrics } from "./step-metrics.ts";

export const METRICS_FILE = "metrics.jsonl";
export const TRAJECTORIES_DIR = "trajectories";

export function stepTrajectoriesFile(outDir: string, step: number): string {
  return join(outDir, TRAJECTORIES_DIR, `step-${String(step).padStart(6, "0")}.jsonl`);
}

/** Creates the out dir and removes the records of steps after `lastStep` (0: a fresh run, none kept). */
export async function prepareRunOutputs(outDir: string, lastStep: number): Promise<void> {
  await mkdir(join(outDir, TRAJECTORIES_DIR), { recursive: true });
  const metrics = join(outDir, METRICS_FILE);
  let text = "";
  try {
    text = await readFile(metrics, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const kept = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => {
      try {
        const step = (JSON.parse(line) as { step?: unknown }).step;
        return typeof step === "number" && step <= lastStep;
      } catch {
        return false; // a line cut short by a kill
      }
    });
  const temp = `${metrics}.${process.pid}.tmp`;
  await writeFile(temp, kept.map((l) => `${l}\n`).join(""));
  await rename(temp, metrics);
  for (const name of await readdir(join(outDir, TRAJECTORIES_DIR))) {
    const m = /^step-(\d+)\.jsonl$/.exec(name);
    if (m && Number(m[1]) > lastStep) await rm(join(outDir, TRAJECTORIES_DIR, name), { force: true });
  }
}

export async function appendStepMetrics(outDir: string, metrics: StepMetrics): Promise<void> {
  await appendFile(join(outDir, METRICS_FILE), `${JSON.stringify(metrics)}\n`);
}

export async function writeStepTrajectories(
  outDir: string,
  step: number,
  trajectories: readonly Trajectory[],
): Promise<void> {
  const file = stepTrajectoriesFile(outDir, step);
  await rm(file, { force: true });
  await appendTrajectoriesJsonl(file, trajectories);
}
