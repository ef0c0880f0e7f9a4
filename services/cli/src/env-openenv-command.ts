// `rlf env openenv --env MODULE:CLASS|NAME [...] (--http PORT | --stdio)`: an OpenEnv environment class
// served as an MCP environment server (@rlfactory/environments' OpenEnv adapter, in sandboxed workers).
import { parseArgs } from "node:util";
import { openEnvResult, startOpenEnvHost } from "@rlfactory/environments";
import { pythonEnvironment } from "@rlfactory/environments/python-environment";
import { UsageError } from "@rlfactory/kit/command-line";
import { createToolServer, serveFromArgs } from "@rlfactory/toolkit";

const OPTIONS = {
  env: { type: "string" },
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

function positiveInt(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer`);
  return n;
}

export async function runEnvOpenEnvCommand(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.env === undefined) throw new UsageError("rlf env openenv needs --env MODULE:CLASS or a name");
  if (values.stdio !== true && values.http === undefined)
    throw new UsageError("choose --stdio or --http PORT");
  if (values.fork !== undefined && values.fork !== "replay" && values.fork !== "refuse")
    throw new UsageError(`--fork must be replay or refuse, not "${values.fork}"`);
  const workers = positiveInt("workers", values.workers);
  const memoryMb = positiveInt("memory-mb", values["memory-mb"]);
  const maxEpisodes = positiveInt("max-episodes", values["max-episodes"]);
  const idleTimeoutMs = positiveInt("idle-timeout-ms", values["idle-timeout-ms"]);
  const host = await startOpenEnvHost({
    env: values.env,
    ...(values.path !== undefined ? { path: values.path } : {}),
    ...(values.venv !== undefined ? { venv: values.venv } : {}),
    ...(values.fork !== undefined ? { fork: values.fork } : {}),
    ...(workers ? { workers } : {}),
    ...(memoryMb ? { memoryMb } : {}),
  });
  // the server's name: --name, else the environment's name (`echo_env`) or its module's last part
  const name = values.name ?? values.env.split(":")[0]!.split(".")[0]!;
  const environment = pythonEnvironment(host, {
    name,
    state: (snapshot) => Object.values(snapshot)[0] ?? {},
    result: openEnvResult,
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
