// `rlf env openenv --env MODULE:CLASS|NAME [...] (--http PORT | --stdio)`: an OpenEnv environment class
// served as an MCP environment server (@rlfactory/environments' OpenEnv adapter, in sandboxed workers).
import { parseArgs } from "node:util";
import { openEnvResult, startOpenEnvHost } from "@rlfactory/environments";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { checkServeFlags, servePythonEnvironment } from "./serve-python-environment.ts";

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

export async function runEnvOpenEnvCommand(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.env === undefined) throw new UsageError("rlf env openenv needs --env MODULE:CLASS or a name");
  const limits = checkServeFlags(values);
  if (values.fork !== undefined && values.fork !== "replay" && values.fork !== "refuse")
    throw new UsageError(`--fork must be replay or refuse, not "${values.fork}"`);
  const workers = positiveIntArg(values.workers, "--workers");
  const memoryMb = positiveIntArg(values["memory-mb"], "--memory-mb");
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
  return servePythonEnvironment(
    host,
    { name, state: (snapshot) => Object.values(snapshot)[0] ?? {}, result: openEnvResult, ...limits },
    values,
  );
}
