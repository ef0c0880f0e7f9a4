// Config files: one way to read a YAML or JSON file and validate it with a zod schema. Every error
// names the file, and a validation error names each offending key path (`→ at backend.base_url`).
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

/** What a service passes so the errors it gets read as its own. */
export interface ConfigFileOptions {
  /** What the file is, for messages: "gateway config", "judge config", ... */
  what: string;
  /** The error class to throw (default ConfigFileError). */
  error?: new (
    message: string,
  ) => Error;
  /** Turns the file's text into a value (default: YAML, which reads JSON too). Throw to refuse it. */
  parseText?: (text: string, path: string) => unknown;
}

export class ConfigFileError extends Error {
  override name = "ConfigFileError";
}

/** The parsed contents of a YAML or JSON config file (an empty file is `{}`). */
export function readConfigFile(path: string, options: ConfigFileOptions): unknown {
  const ErrorClass = options.error ?? ConfigFileError;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ErrorClass(`cannot read ${options.what} ${path}: ${(err as Error).message}`);
  }
  try {
    return (options.parseText ?? parseYamlText)(text, path) ?? {};
  } catch (err) {
    throw new ErrorClass(`cannot parse ${options.what} ${path}: ${(err as Error).message}`);
  }
}

/**
 * Validates `raw` with `schema`. A failure lists every problem with its key path, under
 * "invalid WHAT" (WHAT is `options.what`, plus the file when one is given).
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  options: ConfigFileOptions & { path?: string },
): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const ErrorClass = options.error ?? ConfigFileError;
  const source = options.path === undefined ? options.what : `${options.what} ${options.path}`;
  throw new ErrorClass(`invalid ${source}:\n${z.prettifyError(parsed.error)}`);
}

/** Reads a YAML or JSON config file and validates it with `schema`. */
export function loadConfigFile<S extends z.ZodType>(
  path: string,
  schema: S,
  options: ConfigFileOptions,
): z.output<S> {
  return parseConfig(schema, readConfigFile(path, options), { ...options, path });
}

function parseYamlText(text: string): unknown {
  return parseYaml(text);
}
