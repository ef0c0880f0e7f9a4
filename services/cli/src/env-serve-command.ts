// `rlf env serve BUNDLE (--http PORT | --stdio)`: an environment bundle (services/environments/README.md,
// "Environment bundles") served as an MCP environment server — every tool of its tools.json, run in
// the sandboxed Python workers of @rlfactory/environments. An episode's config is `{"task": ID}` (and,
// form "environment", optionally `{"data": {...}}`); its state is the episode's `data` (form
// "environment") or `{"task"}` (form "sample").
import { parseArgs } from "node:util";
import { bundleResult, bundleState, readBundle, startBundleHost } from "@rlfactory/environments";
import { pythonEnvironment } from "@rlfactory/environments/python-environment";
import { positiveIntArg, UsageError } from "@rlfactory/kit/command-line";
import { createToolServer, rawResult, serveFromArgs } from "@rlfactory/toolkit";

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
  if (values.stdio !== true && values.http === undefined)
    throw new UsageError(`choose --stdio or --http PORT`);
  const workers = positiveIntArg(values.workers, "--workers");
  const callTimeoutS = positiveIntArg(values["call-timeout-s"], "--call-timeout-s");
  const maxEpisodes = positiveIntArg(values["max-episodes"], "--max-episodes");
  const idleTimeoutMs = positiveIntArg(values["idle-timeout-ms"], "--idle-timeout-ms");

  const bundle = await readBundle(positionals[0] as string);
  const name = values.name ?? "ftrl";
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    throw new UsageError(`--name must be letters, digits, "_" or "-" (got "${name}")`);
  const host = await startBundleHost(bundle, {
    ...(workers ? { workers } : {}),
    ...(values.venv !== undefined ? { venv: values.venv } : {}),
    ...(callTimeoutS ? { callTimeoutS } : {}),
  });
  const environment = pythonEnvironment(host, {
    name,
    state: (snapshot) => bundleState(bundle.form, snapshot),
    result: (value) => {
      const { text, structured } = bundleResult(value);
      return structured === undefined ? text : rawResult([{ type: "text", text }], structured);
    },
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
