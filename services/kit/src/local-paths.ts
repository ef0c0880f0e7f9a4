// Where rlfactory keeps things on this machine: its cache folder and the engines' Python environment.
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** rlfactory's cache folder: $XDG_CACHE_HOME/rlfactory, else ~/.cache/rlfactory. */
export function rlfactoryCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), ".cache"), "rlfactory");
}

/** The Python of the engines' environment (`npm run setup:engines`), or $RLF_ENGINES_PYTHON. */
export function enginesPython(env: NodeJS.ProcessEnv = process.env): string {
  return env.RLF_ENGINES_PYTHON ?? fileURLToPath(new URL("../../engines/.venv/bin/python", import.meta.url));
}
