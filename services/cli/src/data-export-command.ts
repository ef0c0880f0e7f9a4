// `rlf data export --engine verl|slime|skyrl|trl --in TASKS.jsonl --out FILE`: a rollout task file as a
// training engine's own dataset, each row carrying its whole task as `rlf_task` (engine-datasets.ts).
// Every line is checked against the Task schema first; a bad one is named by its line number.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { taskSchema } from "@rlfactory/contracts";
import { UsageError } from "@rlfactory/kit/command-line";
import {
  ENGINE_FORMATS,
  ENGINES,
  type Engine,
  type SourceTask,
  writeEngineDataset,
} from "@rlfactory/rollout/engine-datasets";

export async function runDataExportCommand(argv: string[]): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { engine: { type: "string" }, in: { type: "string" }, out: { type: "string" } },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  if (!values.engine || !values.in || !values.out)
    throw new UsageError(`rlf data export needs --engine, --in and --out`);
  const engine = values.engine;
  if (!isEngine(engine))
    throw new UsageError(`rlf data export: --engine must be one of ${ENGINES.join(", ")} (got "${engine}")`);
  const tasks = await readTaskFile(values.in);
  await writeEngineDataset(engine, tasks, values.out);
  process.stderr.write(
    `rlf data export: wrote ${tasks.length} ${engine} rows (${ENGINE_FORMATS[engine]}) to ${values.out}\n`,
  );
  return 0;
}

function isEngine(name: string): name is Engine {
  return (ENGINES as readonly string[]).includes(name);
}

/** The tasks of a JSONL task file, each validated; an error names the file and line of the first bad one. */
export async function readTaskFile(path: string): Promise<SourceTask[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(`rlf data export: cannot read ${path}: ${(err as Error).message}`);
  }
  const tasks: SourceTask[] = [];
  const seen = new Map<string, number>();
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const where = `${path}:${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new UsageError(`rlf data export: ${where}: not JSON (${(err as Error).message})`);
    }
    const parsed = taskSchema.safeParse(raw);
    if (!parsed.success)
      throw new UsageError(`rlf data export: ${where}: not a rollout task: ${issues(parsed.error.issues)}`);
    const first = seen.get(parsed.data.id);
    if (first !== undefined)
      throw new UsageError(
        `rlf data export: ${where}: duplicate task id "${parsed.data.id}" (first on line ${first})`,
      );
    seen.set(parsed.data.id, i + 1);
    tasks.push({ task: parsed.data, raw: raw as Record<string, unknown> });
  }
  if (tasks.length === 0) throw new UsageError(`rlf data export: ${path} holds no tasks`);
  return tasks;
}

/** zod issues as one line: `path: message; ...`. */
function issues(list: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return list
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join(".") : "task"}: ${i.message}`)
    .join("; ");
}
