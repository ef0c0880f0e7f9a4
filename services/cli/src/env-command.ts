// `rlf env python --module FILE_OR_MODULE --class NAME [--schemas FILE] [...] (--http PORT | --stdio)`
// and `rlf env bfcl (--http PORT | --stdio)`: Python classes served as an MCP environment server,
// one set of instances per episode, in sandboxed persistent workers (@rlfactory/environments).
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  PythonEnvironmentHost as Host,
  type PythonEnvironmentHost,
  readFunctionDocs,
  startBfclHost,
} from "@rlfactory/environments";
import { pythonEnvironment } from "@rlfactory/environments/python-environment";
import { UsageError } from "@rlfactory/kit/command-line";
import { createToolServer, serveFromArgs } from "@rlfactory/toolkit";

const COMMON = {
  stdio: { type: "boolean" },
  http: { type: "string" },
  host: { type: "string" },
  workers: { type: "string" },
  "max-episodes": { type: "string" },
  "idle-timeout-ms": { type: "string" },
} as const;

const PYTHON = {
  ...COMMON,
  module: { type: "string" },
  class: { type: "string" },
  schemas: { type: "string" },
  venv: { type: "string" },
  name: { type: "string" },
} as const;

function positiveInt(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer`);
  return n;
}

export async function runEnvCommand(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind !== "python" && kind !== "bfcl")
    throw new UsageError(`rlf env needs python or bfcl here, not "${kind ?? ""}"`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: kind === "python" ? PYTHON : COMMON, strict: true }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  if (values.stdio !== true && str("http") === undefined)
    throw new UsageError(`choose --stdio or --http PORT`);
  const workers = positiveInt("workers", str("workers"));
  const maxEpisodes = positiveInt("max-episodes", str("max-episodes"));
  const idleTimeoutMs = positiveInt("idle-timeout-ms", str("idle-timeout-ms"));
  const serveArgs = [
    ...(values.stdio === true ? ["--stdio"] : []),
    ...(str("http") !== undefined ? ["--http", str("http") as string] : []),
    ...(str("host") !== undefined ? ["--host", str("host") as string] : []),
  ];

  let host: PythonEnvironmentHost;
  let name: string;
  let unwrapClass: string | undefined;
  if (kind === "bfcl") {
    host = await startBfclHost({ ...(workers ? { workers } : {}) });
    name = "bfcl";
  } else {
    const target = str("module");
    const className = str("class");
    if (target === undefined || className === undefined)
      throw new UsageError(`rlf env python needs --module and --class`);
    // A path (ends in .py or names a file) is loaded from its file; anything else is imported as a module.
    const ref =
      target.endsWith(".py") || existsSync(target)
        ? { file: target, className }
        : { module: target, className };
    const schemas = str("schemas");
    const venv = str("venv");
    host = await Host.start({
      classes: [ref],
      ...(schemas !== undefined ? { functionDocs: readFunctionDocs(schemas) } : {}),
      ...(venv !== undefined ? { venv } : {}),
      ...(workers ? { workers } : {}),
    });
    name = str("name") ?? className;
    unwrapClass = className;
  }
  const environment = pythonEnvironment(host, {
    name,
    ...(unwrapClass !== undefined ? { unwrapClass } : {}),
    ...(maxEpisodes ? { maxEpisodes } : {}),
    ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
  });
  const server = createToolServer({ name, version: "1.0.0", tools: environment.tools });
  await serveFromArgs(server, serveArgs);
  return -1;
}
