// Serving a bundle: a PythonEnvironmentHost whose one class (python/bundle_env.py) turns the bundle's
// code files into tools, run in the sandboxed workers; the bundle folder is bound read-only there.
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PythonEnvironmentHost, type PythonEnvironmentHostOptions } from "../python-environment-host.ts";
import type { Bundle, BundleForm } from "./bundle-schema.ts";

/** The environment class that serves a bundle (python/bundle_env.py). */
export const BUNDLE_ENV_SCRIPT = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../python/bundle_env.py",
);
export const BUNDLE_CLASS = "BundleEnvironment";

export type BundleHostOptions = Omit<
  PythonEnvironmentHostOptions,
  "classes" | "functionDocs" | "construct" | "setup" | "searchPath"
> & {
  /** A tool call running longer than this raises in the worker (a tool error; FTRL's 10 s). */
  callTimeoutS?: number;
};

/**
 * Starts a host serving `bundle` (read and verified by `readBundle`): one tool per entry of tools.json,
 * with its schema. An episode's config is `{task?, data?}` (see bundleState for its state).
 */
export function startBundleHost(
  bundle: Bundle,
  options: BundleHostOptions = {},
): Promise<PythonEnvironmentHost> {
  const { callTimeoutS = 10, ...rest } = options;
  const dir = realpathSync(resolve(bundle.dir));
  return PythonEnvironmentHost.start({
    // a call past callTimeoutS is the tool's error; the worker is ended only well after it
    callTimeoutMs: Math.max(30_000, (callTimeoutS + 5) * 1000),
    ...rest,
    classes: [{ file: BUNDLE_ENV_SCRIPT, className: BUNDLE_CLASS }],
    functionDocs: bundle.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    })),
    searchPath: [dir],
    setup: {
      bundle: dir,
      form: bundle.form,
      tools: bundle.tools.map((t) => t.name),
      tasks: Object.fromEntries(bundle.tasks.map((t) => [t.id, t.tools])),
      callTimeoutS,
      // every worker checks the code and data it loads against these (a respawned one too)
      files: Object.fromEntries(
        Object.entries(bundle.manifest.files).filter(
          ([path]) => path.startsWith("code/") || path.startsWith("data/"),
        ),
      ),
    },
  });
}

/** An episode's state as the bundle server shows it: form "environment" → its `data`; "sample" → `{task}`. */
export function bundleState(form: BundleForm, snapshot: Record<string, Record<string, unknown>>): unknown {
  const instance = snapshot[BUNDLE_CLASS] ?? {};
  return form === "environment" ? (instance.data ?? {}) : { task: instance.task ?? null };
}

/** A bundle tool's result from the worker: the text the model reads, and a dict result as structured content. */
export function bundleResult(value: unknown): { text: string; structured?: Record<string, unknown> } {
  const v = (value ?? {}) as { text?: unknown; structured?: unknown };
  const text = typeof v.text === "string" ? v.text : JSON.stringify(value ?? null);
  const structured = v.structured;
  return typeof structured === "object" && structured !== null && !Array.isArray(structured)
    ? { text, structured: structured as Record<string, unknown> }
    : { text };
}
