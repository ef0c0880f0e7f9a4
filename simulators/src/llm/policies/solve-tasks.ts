// The tasks the `solve` policy answers from (`--tasks FILE`, JSON Lines as `rlf env build` writes its task
// file): per task, its prompt (to recognise the conversation), the final answer (`ground_truth`, a
// string) and the ground-truth calls turn by turn (`extra_info.actions`: a list of turns, each a list of
// `{name, arguments}` under the names the model sees). Only these fields are read.
import { z } from "zod";
import { loadTaskFile } from "./task-file.ts";

const callSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type SolveCall = z.infer<typeof callSchema>;

export const solveTaskSchema = z.looseObject({
  id: z.string().min(1),
  prompt: z.array(z.looseObject({ role: z.string(), content: z.string() })).min(1),
  ground_truth: z.string(),
  extra_info: z.looseObject({ actions: z.array(z.array(callSchema)).default([]) }).default({ actions: [] }),
});
export type SolveTask = z.output<typeof solveTaskSchema>;

/** Reads a task file; a bad line throws naming the file, the line and the field. */
export function loadSolveTasks(path: string): Promise<SolveTask[]> {
  return loadTaskFile(path, solveTaskSchema, "solve tasks");
}
