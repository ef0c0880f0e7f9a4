// The tasks the `solve` policy answers from (`--tasks FILE`, JSON Lines as `rlf env build` writes its task
// file): per task, its prompt (to recognise the conversation), the final answer (`ground_truth`, a
// string) and the ground-truth calls turn by turn (`extra_info.actions`: a list of turns, each a list of
// `{name, arguments}` under the names the model sees). Only these fields are read.
import { readFile } from "node:fs/promises";
import { z } from "zod";

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
export async function loadSolveTasks(path: string): Promise<SolveTask[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the solve tasks ${path}: ${(err as Error).message}`);
  }
  const tasks: SolveTask[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${path}:${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message})`);
    }
    const parsed = solveTaskSchema.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${where}: ${issue.path.join(".") || "(row)"}: ${issue.message}`);
    }
    tasks.push(parsed.data);
  });
  if (tasks.length === 0) throw new Error(`${path} holds no tasks`);
  return tasks;
}
