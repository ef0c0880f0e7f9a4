// Gymnasium environments and TextArena games as environment servers (`rlf env gym`, `rlf env
// textarena`): python/gym_env.py and python/textarena_env.py, served by a PythonEnvironmentHost from the
// environments venv (scripts/setup.sh installs gymnasium and textarena there), one environment instance
// per episode. Their tools are reset/step (and gym's render); each result is the observation as text
// with `{reward, done, ...}` as structured content (`reward`: the episode's cumulative reward).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RawToolResult, rawResult } from "@rlfactory/toolkit";
import { BFCL_VENV } from "./bfcl-pack.ts";
import { PythonEnvironmentHost, type PythonEnvironmentHostOptions } from "./python-environment-host.ts";

const PYTHON_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../python");

export type GymHostOptions = Omit<
  PythonEnvironmentHostOptions,
  "classes" | "functionDocs" | "construct" | "setup" | "methods" | "searchPath"
> & {
  /** The environment's registered id (`FrozenLake-v1`, `TicTacToe-v0`). */
  id: string;
  /** Keyword arguments of `gymnasium.make` / `textarena.make`. */
  kwargs?: Record<string, unknown>;
};

/** Which framework: Gymnasium (`gymnasium.make`) or TextArena (`textarena.make`). */
export type GymKind = "gym" | "textarena";

const CLASSES: Record<GymKind, { module: string; className: string }> = {
  gym: { module: "gym_env", className: "GymEnvironment" },
  textarena: { module: "textarena_env", className: "TextArenaEnvironment" },
};

/** Starts a host serving one Gymnasium environment or TextArena game (an unknown id fails here). */
export function startGymHost(kind: GymKind, options: GymHostOptions): Promise<PythonEnvironmentHost> {
  const { id, kwargs, ...rest } = options;
  return PythonEnvironmentHost.start({
    venv: BFCL_VENV,
    ...rest,
    classes: [CLASSES[kind]],
    searchPath: [PYTHON_DIR],
    setup: { id, kwargs: kwargs ?? {} },
  });
}

/** A step's `{text, structured}` as the tool result: the text for the model, the rest as structured content. */
export function gymResult(value: unknown): string | RawToolResult {
  if (typeof value === "object" && value !== null && "text" in value && "structured" in value) {
    const { text, structured } = value as { text: unknown; structured: Record<string, unknown> };
    return rawResult([{ type: "text", text: String(text) }], structured);
  }
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}
