// `rlf env verifiers (--taskset MODULE:CLASS | --toolset MODULE:CLASS) [...] (--http PORT | --stdio)`: a
// verifiers environment served as an MCP environment server (@rlfactory/environments' verifiers
// adapter, in sandboxed workers).
import { parseArgs } from "node:util";
import { startVerifiersHost } from "@rlfactory/environments";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { jsonObjectArg } from "./data-verifiers-command.ts";
import { checkServeFlags, servePythonEnvironment } from "./serve-python-environment.ts";

const OPTIONS = {
  taskset: { type: "string" },
  toolset: { type: "string" },
  config: { type: "string" },
  path: { type: "string", multiple: true },
  venv: { type: "string" },
  fork: { type: "string" },
  workers: { type: "string" },
  "memory-mb": { type: "string" },
  name: { type: "string" },
  "max-episodes": { type: "string" },
  "idle-timeout-ms": { type: "string" },
  stdio: { type: "boolean" },
  http: { type: "string" },
  host: { type: "string" },
} as const;

export async function runEnvVerifiersCommand(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if ((values.taskset === undefined) === (values.toolset === undefined))
    throw new UsageError("rlf env verifiers needs --taskset MODULE:CLASS or --toolset MODULE:CLASS (one)");
  const limits = checkServeFlags(values);
  if (values.fork !== undefined && values.fork !== "copy" && values.fork !== "refuse")
    throw new UsageError(`--fork must be copy or refuse, not "${values.fork}"`);
  const workers = positiveIntArg(values.workers, "--workers");
  const memoryMb = positiveIntArg(values["memory-mb"], "--memory-mb");
  const host = await startVerifiersHost({
    ...(values.taskset !== undefined ? { taskset: values.taskset } : {}),
    ...(values.toolset !== undefined ? { toolset: values.toolset } : {}),
    config: jsonObjectArg(values.config, "--config"),
    ...(values.path !== undefined ? { path: values.path } : {}),
    ...(values.venv !== undefined ? { venv: values.venv } : {}),
    ...(values.fork !== undefined ? { fork: values.fork } : {}),
    ...(workers ? { workers } : {}),
    ...(memoryMb ? { memoryMb } : {}),
  });
  const name = values.name ?? "verifiers";
  return servePythonEnvironment(
    host,
    { name, state: (snapshot) => Object.values(snapshot)[0] ?? {}, ...limits },
    values,
  );
}
