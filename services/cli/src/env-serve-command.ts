// `rlf env serve BUNDLE (--http PORT | --stdio)`: an environment bundle (services/environments/README.md,
// "Environment bundles") served as an MCP environment server — every tool of its tools.json, run in
// the sandboxed Python workers of @rlfactory/environments. An episode's config is `{"task": ID}` (and,
// form "environment", optionally `{"data": {...}}`); its state is the episode's `data` (form
// "environment") or `{"task"}` (form "sample").
import { parseArgs } from "node:util";
import { bundleResult, bundleState, readBundle, startBundleHost } from "@rlfactory/environments";
import { pythonEnvironment } from "@rlfactory/environments/python-environment";
import { UsageError } from "@rlfactory/kit/command-line";
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

function positiveInt(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer`);
  return n;
}

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
  const workers = positiveInt("workers", values.workers);
  const callTimeoutS = positiveInt("call-timeout-s", values["call-timeout-s"]);
  const maxEpisodes = positiveInt("max-episodes", values["max-episodes"]);
  const idleTimeoutMs = positiveInt("idle-timeout-ms", values["idle-timeout-ms"]);

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
