// The tasks the `replay` policy answers from (`--tasks FILE`, JSON Lines as `rlf data bfcl` writes them):
// per task, its prompt and later user messages (to recognise the conversation) and each user turn's
// ground-truth calls. Only these fields are read; the rest of a task row is ignored.
import { z } from "zod";
import { loadTaskFile } from "./task-file.ts";

const callSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type ReplayCall = z.infer<typeof callSchema>;

export const replayTaskSchema = z.looseObject({
  id: z.string().min(1),
  prompt: z.array(z.looseObject({ role: z.string(), content: z.string() })).min(1),
  /** The first user turn's calls. */
  ground_truth: z.array(callSchema).default([]),
  turns: z
    .array(z.looseObject({ content: z.string(), ground_truth: z.array(callSchema).default([]) }))
    .default([]),
});
export type ReplayTask = z.output<typeof replayTaskSchema>;

/** Reads a task file; a bad line throws naming the file, the line and the field. */
export function loadReplayTasks(path: string): Promise<ReplayTask[]> {
  return loadTaskFile(path, replayTaskSchema, "replay tasks");
}
