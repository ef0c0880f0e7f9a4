// Reading the task file a task-driven policy answers from (`--tasks FILE`, JSON Lines): every non-blank
// line parsed and checked against the policy's schema; a bad line throws naming the file, the line and
// the field; a file without tasks is refused.
import { readFile } from "node:fs/promises";
import type { z } from "zod";

export async function loadTaskFile<S extends z.ZodType>(
  path: string,
  schema: S,
  what: string,
): Promise<z.output<S>[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the ${what} ${path}: ${(err as Error).message}`);
  }
  const tasks: z.output<S>[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${path}:${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message})`);
    }
    const parsed = schema.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${where}: ${issue.path.join(".") || "(row)"}: ${issue.message}`);
    }
    tasks.push(parsed.data);
  });
  if (tasks.length === 0) throw new Error(`${path} holds no tasks`);
  return tasks;
}
