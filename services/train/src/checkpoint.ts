// `<out>/checkpoint.json`: where a training run can resume from. It names the training state the
// server saved (save_weights: weights + optimizer) after step `step`, and the dataset cursor after that
// step. Written atomically (temp file + rename), so a run killed at any moment leaves the previous
// checkpoint or the new one, never half of one.
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { TrainRunError } from "./errors.ts";
import { samplerPathSchema, weightsPathSchema } from "./tinker-schema.ts";

export const CHECKPOINT_FILE = "checkpoint.json";

export const trainCheckpointSchema = z.strictObject({
  version: z.literal(1),
  /** The last completed training step (1-based): its optimizer step is in the saved state. */
  step: z.number().int().positive(),
  /** Index of the next task in the dataset's order (wraps around the dataset). */
  dataset_cursor: z.number().int().nonnegative(),
  /** save_weights' path: tinker://MODEL/weights/NAME (load_weights takes it). */
  state_path: weightsPathSchema,
  /** The last sampler weights the run sampled from (before this step's update). */
  sampler_path: samplerPathSchema.nullable(),
  /** The model that saved the state (a resumed run trains a new model loaded from it). */
  model_id: z.string().min(1),
  base_model: z.string().min(1),
  lora_rank: z.number().int().positive(),
  base_url: z.string(),
  saved_at: z.string(),
});
export type TrainCheckpoint = z.infer<typeof trainCheckpointSchema>;

/** The checkpoint in `outDir`, or null when there is none. Throws TrainRunError on a corrupt one. */
export async function readCheckpoint(outDir: string): Promise<TrainCheckpoint | null> {
  const path = join(outDir, CHECKPOINT_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new TrainRunError(`cannot read ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TrainRunError(`${path} is not JSON: delete it to start over, or restore it`);
  }
  const parsed = trainCheckpointSchema.safeParse(json);
  if (!parsed.success) {
    throw new TrainRunError(`${path} is not a training checkpoint:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export async function writeCheckpoint(outDir: string, checkpoint: TrainCheckpoint): Promise<void> {
  const path = join(outDir, CHECKPOINT_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(trainCheckpointSchema.parse(checkpoint), null, 2)}\n`);
  await rename(temp, path);
}
