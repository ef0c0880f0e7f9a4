// Reads a bundle directory, verifying every file's digest and the hash before parsing anything.
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { BundleError } from "./bundle-error.ts";
import { checkContent } from "./bundle-files.ts";
import { bundleHash, compareCodeUnits, fileDigest } from "./bundle-hash.ts";
import {
  type Bundle,
  type BundleManifest,
  BundleManifestSchema,
  type BundleTask,
  BundleTaskSchema,
  type BundleTool,
  BundleToolSchema,
  TABLE_NAME,
  TOOL_NAME,
} from "./bundle-schema.ts";
import { JsonText } from "./json-text.ts";

/**
 * Reads and verifies the bundle in `dir`: every file listed in manifest.json has its digest, the hash
 * is the hash of those digests, no file is unlisted, and the content follows the format. Any
 * mismatch throws a `BundleError` naming the file.
 */
export async function readBundle(dir: string): Promise<Bundle> {
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath))
    throw new BundleError(`${manifestPath}: missing (not a bundle directory)`, "manifest.json");
  const manifest = parseJson(await readFile(manifestPath, "utf8"), "manifest.json", BundleManifestSchema);

  const present = listFiles(dir);
  for (const path of present) {
    if (!(path in manifest.files)) throw new BundleError(`${path}: not listed in manifest.json`, path);
  }
  const texts: Record<string, string> = {};
  for (const path of Object.keys(manifest.files).sort(compareCodeUnits)) {
    if (!present.includes(path)) throw new BundleError(`${path}: listed in manifest.json but missing`, path);
    const bytes = await readFile(join(dir, path));
    const digest = fileDigest(bytes);
    if (digest !== manifest.files[path]) {
      throw new BundleError(
        `${path}: digest mismatch (manifest.json says ${manifest.files[path]}, the file is ${digest}); the bundle was modified`,
        path,
      );
    }
    texts[path] = bytes.toString("utf8");
  }
  const hash = bundleHash(manifest.files);
  if (hash !== manifest.hash) {
    throw new BundleError(
      `manifest.json: hash mismatch (it says ${manifest.hash}, its files give ${hash})`,
      "manifest.json",
    );
  }

  const bundle = parseFiles(dir, manifest, texts);
  checkContent(bundle);
  return bundle;
}

function parseFiles(dir: string, manifest: BundleManifest, texts: Record<string, string>): Bundle {
  const toolsText = texts["tools.json"];
  if (toolsText === undefined) throw new BundleError("tools.json: missing", "tools.json");
  const tools: BundleTool[] = parseJson(toolsText, "tools.json", BundleToolSchema.array());
  const tasksText = texts["tasks.jsonl"];
  if (tasksText === undefined) throw new BundleError("tasks.jsonl: missing", "tasks.jsonl");
  const tasks: BundleTask[] = [];
  tasksText.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    tasks.push(parseJson(line, `tasks.jsonl line ${i + 1}`, BundleTaskSchema, "tasks.jsonl"));
  });
  const code: Record<string, string> = {};
  const data: Record<string, unknown> = {};
  let validation: unknown;
  for (const [path, text] of Object.entries(texts)) {
    const codeMatch = /^code\/(.+)\.py$/.exec(path);
    const dataMatch = /^data\/(.+)\.json$/.exec(path);
    if (codeMatch?.[1] !== undefined && TOOL_NAME.test(codeMatch[1])) code[codeMatch[1]] = text;
    else if (dataMatch?.[1] !== undefined && TABLE_NAME.test(dataMatch[1]))
      data[dataMatch[1]] = jsonTextOf(text, path);
    else if (path === "validation.json") validation = parseJson(text, path);
    else if (path !== "tools.json" && path !== "tasks.jsonl") {
      throw new BundleError(`${path}: not a file of the bundle format`, path);
    }
  }
  if (manifest.form === "sample" && Object.keys(data).length > 0) {
    throw new BundleError('data/: only a bundle of form "environment" has a database', "data/");
  }
  const bundle: Bundle = {
    dir,
    manifest,
    hash: manifest.hash,
    name: manifest.name,
    form: manifest.form,
    source: manifest.source,
    tools,
    code,
    data,
    tasks,
  };
  if (validation !== undefined) bundle.validation = validation;
  return bundle;
}

/** Every regular file under `dir` but manifest.json, as `/`-separated relative paths. */
function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix))) {
    const rel = prefix === "" ? entry : `${prefix}/${entry}`;
    const stat = lstatSync(join(dir, rel));
    if (stat.isDirectory()) out.push(...listFiles(dir, rel));
    else if (rel !== "manifest.json") {
      if (!stat.isFile()) throw new BundleError(`${rel}: not a regular file`, rel);
      out.push(rel);
    }
  }
  return out;
}

/** A data file as text, kept byte for byte (key order, `N.0` floats), once it is known to be JSON. */
function jsonTextOf(text: string, path: string): JsonText {
  parseJson(text, path);
  return new JsonText(text);
}

function parseJson(text: string, where: string): unknown;
function parseJson<T>(text: string, where: string, schema: z.ZodType<T>, file?: string): T;
function parseJson<T>(text: string, where: string, schema?: z.ZodType<T>, file?: string): T | unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BundleError(`${where}: not JSON (${(err as Error).message})`, file ?? where);
  }
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
    throw new BundleError(`${where}: ${at}${issue?.message ?? "invalid"}`, file ?? where);
  }
  return parsed.data;
}
