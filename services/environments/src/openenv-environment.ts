// OpenEnv environments (`rlf env openenv`): an OpenEnv Environment class served by the environment host,
// in-process in its sandboxed workers, through the adapter module python/openenv_env.py (reset →
// episode create, each Action class → a typed tool, observation → text + {reward, done, observation},
// state → snapshot, fork by replaying the episode's actions). Here: starting that host, and the tool
// result the adapter's JSON value becomes.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RawToolResult, rawResult } from "@rlfactory/toolkit";
import { z } from "zod";
import { BFCL_VENV } from "./bfcl-pack.ts";
import { EnvironmentError } from "./environment-error.ts";
import { PythonEnvironmentHost } from "./python-environment-host.ts";

/** The adapter module, next to the worker script. */
export const OPENENV_ADAPTER = resolve(dirname(fileURLToPath(import.meta.url)), "../python/openenv_env.py");

/** The adapter class the workers load; `_rlf_setup` returns the class served. */
const ADAPTER_CLASS = "OpenEnvEpisode";

export interface OpenEnvHostOptions {
  /** `MODULE:CLASS`, or a name of OpenEnv's repository (`echo_env`, `coding_env`) installed in the venv. */
  env: string;
  /** The venv whose packages hold openenv and the environment (default: the environments venv). */
  venv?: string;
  /** More folders put first on the workers' sys.path (bound read-only). */
  path?: string[];
  /** Fork by replaying the episode's actions on a fresh instance (default), or refuse every fork. */
  fork?: "replay" | "refuse";
  workers?: number;
  /** Per worker address space, MiB (default 4096: importing openenv loads Gradio, pandas and numpy). */
  memoryMb?: number;
}

/** Starts the environment host serving `options.env`; throws BAD_MODULE when it does not load. */
export async function startOpenEnvHost(options: OpenEnvHostOptions): Promise<PythonEnvironmentHost> {
  const venv = options.venv ?? BFCL_VENV;
  return PythonEnvironmentHost.start({
    classes: [{ file: OPENENV_ADAPTER, className: ADAPTER_CLASS }],
    setup: { env: options.env, fork: options.fork ?? "replay" },
    venv,
    searchPath: options.path ?? [],
    memoryMb: options.memoryMb ?? 4096,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
  }).catch((err: unknown) => {
    if (err instanceof EnvironmentError && /No module named 'openenv'/.test(err.message))
      throw new EnvironmentError(
        "BAD_MODULE",
        `openenv is not installed in ${venv}: run \`npm run setup:environments\` (${err.message})`,
      );
    throw err;
  });
}

/** What the adapter's tools return (openenv_env.py's `_observe`). */
const stepResult = z.object({
  text: z.string(),
  reward: z.number().nullable(),
  done: z.boolean(),
  observation: z.record(z.string(), z.unknown()),
});

/** A step's JSON value as the tool result: the observation's text, and {reward, done, observation}. */
export function openEnvResult(value: unknown): RawToolResult {
  const step = stepResult.parse(value);
  return rawResult([{ type: "text", text: step.text }], {
    reward: step.reward,
    done: step.done,
    observation: step.observation,
  });
}
