// `rlf env python --module FILE_OR_MODULE --class NAME [--methods A,B] [...] (--http PORT | --stdio)`,
// `rlf env bfcl`, `rlf env gym --id ID` and `rlf env textarena --id ID`: Python classes served as an
// MCP environment server, one set of instances per episode, in sandboxed persistent workers
// (@rlfactory/environments).
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  gymResult,
  PythonEnvironmentHost as Host,
  type PythonEnvironmentHost,
  readFunctionDocs,
  startBfclHost,
  startGymHost,
} from "@rlfactory/environments";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { checkServeFlags, servePythonEnvironment } from "./serve-python-environment.ts";

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
  methods: { type: "string" },
} as const;

const GYM = {
  ...COMMON,
  id: { type: "string" },
  kwargs: { type: "string" },
  venv: { type: "string" },
  name: { type: "string" },
} as const;

const OPTIONS = { python: PYTHON, bfcl: COMMON, gym: GYM, textarena: GYM } as const;

function jsonObject(flag: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--${flag} is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError(`--${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

export async function runEnvCommand(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind !== "python" && kind !== "bfcl" && kind !== "gym" && kind !== "textarena")
    throw new UsageError(`rlf env needs python, bfcl, gym or textarena here, not "${kind ?? ""}"`);
  let values: Record<string, string | boolean | undefined>;
  try {
    const options: Record<string, { type: "string" | "boolean" }> = OPTIONS[kind];
    ({ values } = parseArgs({ args: rest, options, strict: true }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const flags = {
    stdio: values.stdio === true,
    http: str("http"),
    host: str("host"),
    "max-episodes": str("max-episodes"),
    "idle-timeout-ms": str("idle-timeout-ms"),
  };
  const limits = checkServeFlags(flags);
  const workers = positiveIntArg(str("workers"), "--workers");

  let host: PythonEnvironmentHost;
  let name: string;
  let unwrapClass: string | undefined;
  let result: typeof gymResult | undefined;
  if (kind === "bfcl") {
    host = await startBfclHost({ ...(workers ? { workers } : {}) });
    name = "bfcl";
  } else if (kind === "gym" || kind === "textarena") {
    const id = str("id");
    if (id === undefined) throw new UsageError(`rlf env ${kind} needs --id`);
    const kwargs = jsonObject("kwargs", str("kwargs"));
    const venv = str("venv");
    host = await startGymHost(kind, {
      id,
      ...(kwargs !== undefined ? { kwargs } : {}),
      ...(venv !== undefined ? { venv } : {}),
      ...(workers ? { workers } : {}),
    });
    name = str("name") ?? kind;
    unwrapClass = kind === "gym" ? "GymEnvironment" : "TextArenaEnvironment";
    result = gymResult;
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
    const methods = str("methods")
      ?.split(",")
      .map((m) => m.trim())
      .filter(Boolean);
    host = await Host.start({
      classes: [ref],
      ...(methods !== undefined && methods.length > 0 ? { methods } : {}),
      ...(schemas !== undefined ? { functionDocs: readFunctionDocs(schemas) } : {}),
      ...(venv !== undefined ? { venv } : {}),
      ...(workers ? { workers } : {}),
    });
    name = str("name") ?? className;
    unwrapClass = className;
  }
  return servePythonEnvironment(
    host,
    {
      name,
      ...(unwrapClass !== undefined ? { unwrapClass } : {}),
      ...(result !== undefined ? { result } : {}),
      ...limits,
    },
    flags,
  );
}
