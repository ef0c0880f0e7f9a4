// The tasks the `replay` policy answers from (`--tasks FILE`, JSON Lines as `rlf data bfcl` writes them):
// per task, its prompt and later user messages (to recognise the conversation) and each user turn's
// ground-truth calls. Only these fields are read; the rest of a task row is ignored.
import { readFile } from "node:fs/promises";
import { z } from "zod";

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
export async function loadReplayTasks(path: string): Promise<ReplayTask[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the replay tasks ${path}: ${(err as Error).message}`);
  }
  const tasks: ReplayTask[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${path}:${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message})`);
    }
    const parsed = replayTaskSchema.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${where}: ${issue.path.join(".") || "(row)"}: ${issue.message}`);
    }
    tasks.push(parsed.data);
  });
  if (tasks.length === 0) throw new Error(`${path} holds no tasks`);
  return tasks;
}
