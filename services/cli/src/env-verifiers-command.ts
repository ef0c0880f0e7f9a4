// `rlf env verifiers (--taskset MODULE:CLASS | --toolset MODULE:CLASS) [...] (--http PORT | --stdio)`: a
// verifiers environment served as an MCP environment server (@rlfactory/environments' verifiers
// adapter, in sandboxed workers).
import { parseArgs } from "node:util";
import { startVerifiersHost } from "@rlfactory/environments";
import { pythonEnvironment } from "@rlfactory/environments/python-environment";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { createToolServer, serveFromArgs } from "@rlfactory/toolkit";
import { jsonObjectArg } from "./data-verifiers-command.ts";

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
  if (values.stdio !== true && values.http === undefined)
    throw new UsageError("choose --stdio or --http PORT");
  if (values.fork !== undefined && values.fork !== "copy" && values.fork !== "refuse")
    throw new UsageError(`--fork must be copy or refuse, not "${values.fork}"`);
  const workers = positiveIntArg(values.workers, "--workers");
  const memoryMb = positiveIntArg(values["memory-mb"], "--memory-mb");
  const maxEpisodes = positiveIntArg(values["max-episodes"], "--max-episodes");
  const idleTimeoutMs = positiveIntArg(values["idle-timeout-ms"], "--idle-timeout-ms");
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
  const environment = pythonEnvironment(host, {
    name,
    state: (snapshot) => Object.values(snapshot)[0] ?? {},
    ...(maxEpisodes ? { maxEpisodes } : {}),
    ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
  });
  const server = createToolServer({ name, version: "1.0.0", tools: environment.tools });
  await serveFromArgs(server, [
    ...(values.stdio === true ? ["--stdio"] : []),
    ...(values.http !== undefined ? ["--http", values.http] : []),
    ...(values.host !== undefined ? ["--host", values.host] : []),
  ]);
  return -1;
}
