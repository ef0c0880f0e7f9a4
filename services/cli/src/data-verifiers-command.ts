// `rlf data verifiers --taskset MODULE:CLASS --out TASKS.jsonl [--config JSON] [--path DIR]... [--venv DIR]
// [--server NAME] [--data-source NAME]`: a verifiers taskset's tasks as rollout tasks, each running in an
// episode of `rlf env verifiers --taskset` (named --server, default verifiers) on that task.
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { type Task, taskSchema } from "@rlfactory/contracts";
import { readVerifiersTasks, type VerifiersTask } from "@rlfactory/environments";
import { UsageError } from "@rlfactory/kit/command-line";

/** A command-line JSON object (`--config '{"targets": [3]}'`); absent: `{}`. */
export function jsonObjectArg(text: string | undefined, flag: string): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag} is not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(`${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** One verifiers task as a rollout task: its prompt (system prompt first), the episode naming it by idx. */
export function verifiersRolloutTask(task: VerifiersTask, server: string, dataSource: string): Task {
  const prompt: Task["prompt"] = [];
  if (task.system_prompt !== null) prompt.push({ role: "system", content: task.system_prompt });
  if (typeof task.prompt === "string") prompt.push({ role: "user", content: task.prompt });
  else if (task.prompt !== null) prompt.push(...(task.prompt as Task["prompt"]));
  return taskSchema.parse({
    id: task.id ?? `${dataSource}-${task.idx}`,
    data_source: dataSource,
    prompt,
    extra_info: { verifiers: task.data },
    environment: { server, config: { task: task.idx } },
  });
}

export async function runDataVerifiersCommand(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parse>["values"];
  const parse = (args: string[]) =>
    parseArgs({
      args,
      options: {
        taskset: { type: "string" },
        config: { type: "string" },
        path: { type: "string", multiple: true },
        venv: { type: "string" },
        out: { type: "string" },
        server: { type: "string" },
        "data-source": { type: "string" },
      },
      strict: true,
    });
  try {
    ({ values } = parse(argv));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!values.taskset || !values.out) throw new UsageError("rlf data verifiers needs --taskset and --out");
  const loaded = await readVerifiersTasks({
    taskset: values.taskset,
    config: jsonObjectArg(values.config, "--config"),
    ...(values.path !== undefined ? { path: values.path } : {}),
    ...(values.venv !== undefined ? { venv: values.venv } : {}),
  });
  const server = values.server ?? "verifiers";
  const dataSource = values["data-source"] ?? values.taskset.split(":").at(-1)!;
  const tasks = loaded.map((t) => {
    if (t.prompt === null && t.system_prompt === null)
      throw new UsageError(`rlf data verifiers: task ${t.id ?? t.idx} has no prompt`);
    return verifiersRolloutTask(t, server, dataSource);
  });
  await writeFile(values.out, tasks.map((t) => `${JSON.stringify(t)}\n`).join(""));
  process.stderr.write(`rlf data verifiers: wrote ${tasks.length} tasks to ${values.out}\n`);
  return 0;
}
