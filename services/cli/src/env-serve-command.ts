// `rlf env serve BUNDLE (--http PORT | --stdio)`: an environment bundle (services/environments/README.md,
// "Environment bundles") served as an MCP environment server — every tool of its tools.json, run in
// the sandboxed Python workers of @rlfactory/environments. An episode's config is `{"task": ID}` (and,
// form "environment", optionally `{"data": {...}}`); its state is the episode's `data` (form
// "environment") or `{"task"}` (form "sample").
import { parseArgs } from "node:util";
import { bundleResult, bundleState, readBundle, startBundleHost } from "@rlfactory/environments";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { rawResult } from "@rlfactory/toolkit";
import { checkServeFlags, servePythonEnvironment } from "./serve-python-environment.ts";

const OPTIONS = {
  stdio: { type: "boolean" },
  http: { type: "string" },
  host: { type: "string" },
  name: { type: "string" },
  venv: { type: "string" },
  workers: { type: "string" },
  "call-timeout-s": { type: "string" },
  "max-episodes": { type: "string" },
  "idle-timeout-ms": { type: "string" },
} as const;

export async function runEnvServeCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`rlf env serve needs one BUNDLE`);
  const limits = checkServeFlags(values);
  const workers = positiveIntArg(values.workers, "--workers");
  const callTimeoutS = positiveIntArg(values["call-timeout-s"], "--call-timeout-s");

  const bundle = await readBundle(positionals[0] as string);
  const name = values.name ?? "ftrl";
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    throw new UsageError(`--name must be letters, digits, "_" or "-" (got "${name}")`);
  const host = await startBundleHost(bundle, {
    ...(workers ? { workers } : {}),
    ...(values.venv !== undefined ? { venv: values.venv } : {}),
    ...(callTimeoutS ? { callTimeoutS } : {}),
  });
  return servePythonEnvironment(
    host,
    {
      name,
      state: (snapshot) => bundleState(bundle.form, snapshot),
      result: (value) => {
        const { text, structured } = bundleResult(value);
        return structured === undefined ? text : rawResult([{ type: "text", text }], structured);
      },
      ...limits,
    },
    values,
  );
}
