// verifiers environments (`rlf env verifiers`, `rlf data verifiers`): a verifiers (PyPI `verifiers`,
// `verifiers.v1`) Taskset or Toolset served by the environment host, in-process in its sandboxed
// workers, through the adapter module python/verifiers_env.py (episode create → a fresh rollout
// state and fresh toolsets for the task, each @vf.tool → a typed tool, snapshot → the state and the
// task's rubric scored on it, fork → a deep copy of the state). Here: starting that host, and reading
// a taskset's tasks.
import { execFile } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { z } from "zod";
import { BFCL_VENV } from "./bfcl-pack.ts";
import { EnvironmentError } from "./environment-error.ts";
import { PythonEnvironmentHost } from "./python-environment-host.ts";

/** The adapter module, next to the worker script. */
export const VERIFIERS_ADAPTER = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../python/verifiers_env.py",
);

/** The adapter class the workers load; `_rlf_setup` returns the class served. */
const ADAPTER_CLASS = "VerifiersEpisode";

export interface VerifiersHostOptions {
  /** `MODULE:CLASS` of a `verifiers.v1.Taskset` (its tasks pick the episodes, its rubric scores them). */
  taskset?: string;
  /** `MODULE:CLASS` of a `verifiers.v1.Toolset` served alone (no tasks, no rubric). */
  toolset?: string;
  /** The taskset's `TasksetConfig` (or the toolset's `ToolsetConfig`) as JSON (default `{}`). */
  config?: Record<string, unknown>;
  /** The venv whose packages hold verifiers and the environment (default: the environments venv). */
  venv?: string;
  /** More folders put first on the workers' sys.path (bound read-only). */
  path?: string[];
  /** Fork by copying the rollout's state onto fresh toolsets (default), or refuse every fork. */
  fork?: "copy" | "refuse";
  workers?: number;
  /** Per worker address space, MiB (default 4096: importing verifiers loads sympy, openai, numpy). */
  memoryMb?: number;
}

function notInstalled(venv: string, err: unknown): unknown {
  if (err instanceof Error && /No module named 'verifiers'/.test(err.message))
    return new EnvironmentError(
      "BAD_MODULE",
      `verifiers is not installed in ${venv}: run \`npm run setup:environments\` (${err.message})`,
    );
  return err;
}

/** Starts the environment host serving the taskset or toolset; throws BAD_MODULE when it does not load. */
export async function startVerifiersHost(options: VerifiersHostOptions): Promise<PythonEnvironmentHost> {
  if ((options.taskset === undefined) === (options.toolset === undefined))
    throw new EnvironmentError("BAD_CONFIG", "give a verifiers taskset or a toolset (one of them)");
  const venv = options.venv ?? BFCL_VENV;
  return PythonEnvironmentHost.start({
    classes: [{ file: VERIFIERS_ADAPTER, className: ADAPTER_CLASS }],
    setup: {
      taskset: options.taskset ?? null,
      toolset: options.toolset ?? null,
      config: options.config ?? {},
      fork: options.fork ?? "copy",
    },
    venv,
    searchPath: options.path ?? [],
    memoryMb: options.memoryMb ?? 4096,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
  }).catch((err: unknown) => {
    throw notInstalled(venv, err);
  });
}

/** One task of a verifiers taskset as the adapter prints it (`verifiers_env.py tasks`). */
export const verifiersTaskSchema = z.object({
  idx: z.number().int(),
  id: z.string().nullable(),
  name: z.string().nullable(),
  prompt: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]),
  system_prompt: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export type VerifiersTask = z.infer<typeof verifiersTaskSchema>;

/** The tasks a taskset loads (its `load()` in the venv's Python, not sandboxed: the user's own code). */
export async function readVerifiersTasks(options: {
  taskset: string;
  config?: Record<string, unknown>;
  venv?: string;
  path?: string[];
}): Promise<VerifiersTask[]> {
  const venv = options.venv ?? BFCL_VENV;
  const pythonPath = [...(options.path ?? []), process.env.PYTHONPATH ?? ""].filter((p) => p !== "");
  try {
    const { stdout } = await promisify(execFile)(
      join(venv, "bin/python"),
      [VERIFIERS_ADAPTER, "tasks", options.taskset, JSON.stringify(options.config ?? {})],
      { maxBuffer: 1 << 30, env: { ...process.env, PYTHONPATH: pythonPath.join(":") } },
    );
    return stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => verifiersTaskSchema.parse(JSON.parse(line)));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr;
    throw notInstalled(venv, new EnvironmentError("BAD_MODULE", stderr?.trim() || (err as Error).message));
  }
}
