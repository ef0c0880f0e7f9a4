// Writes a bundle directory: deterministic bytes (no timestamps, no absolute paths), so the same
// content always gives the same hash.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BundleError } from "./bundle-error.ts";
import { bundleFiles, jsonText } from "./bundle-files.ts";
import { bundleHash, fileDigest } from "./bundle-hash.ts";
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  type BundleContent,
  type BundleManifest,
  BundleSourceSchema,
  BundleTaskSchema,
  BundleToolSchema,
} from "./bundle-schema.ts";

/** The entries of a bundle directory; `writeBundle` replaces exactly these. */
const BUNDLE_ENTRIES = ["manifest.json", "tools.json", "code", "data", "tasks.jsonl", "validation.json"];

/** rlfactory's version: the root package.json's. */
export function rlfactoryVersion(): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../package.json");
  try {
    return String((JSON.parse(readFileSync(root, "utf8")) as { version?: unknown }).version ?? "unknown");
  } catch {
    return "unknown";
  }
}

/** The manifest of `content` (its files' digests and the hash), without writing anything. */
export function bundleManifest(content: BundleContent): {
  manifest: BundleManifest;
  files: Record<string, string>;
} {
  const files = bundleFiles(parseContent(content));
  const digests: Record<string, string> = {};
  for (const [path, text] of Object.entries(files)) digests[path] = fileDigest(text);
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_FORMAT_VERSION,
    name: content.name,
    form: content.form,
    source: content.source,
    versions: { rlfactory: rlfactoryVersion(), format: BUNDLE_FORMAT_VERSION },
    files: digests,
    hash: bundleHash(digests),
  };
  return { manifest, files };
}

/**
 * Writes `content` as a bundle in `dir` (created if missing) and returns its manifest. A directory
 * that exists, is not empty and holds no manifest.json is refused; in a bundle directory, the
 * bundle's own entries are replaced (manifest.json last).
 */
export async function writeBundle(dir: string, content: BundleContent): Promise<BundleManifest> {
  const { manifest, files } = bundleManifest(content);
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes("manifest.json")) {
      throw new BundleError(
        `${dir}: not empty and not a bundle (no manifest.json); refusing to write into it`,
      );
    }
    for (const entry of BUNDLE_ENTRIES) await rm(join(dir, entry), { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  await writeFile(join(dir, "manifest.json"), jsonText(manifest));
  return manifest;
}

/** Checks the content's own shapes (the zod schemas), naming the file a bad value would go to. */
function parseContent(content: BundleContent): BundleContent {
  if (typeof content.name !== "string" || content.name === "")
    throw new BundleError("manifest.json: name is empty");
  if (content.form !== "sample" && content.form !== "environment") {
    throw new BundleError(
      `manifest.json: form must be "sample" or "environment", not ${JSON.stringify(content.form)}`,
    );
  }
  const source = BundleSourceSchema.safeParse(content.source);
  if (!source.success) throw new BundleError(`manifest.json: source: ${source.error.issues[0]?.message}`);
  const tools = content.tools.map((tool, i) => {
    const parsed = BundleToolSchema.safeParse(tool);
    if (!parsed.success)
      throw new BundleError(`tools.json: tool ${i}: ${describe(parsed.error)}`, "tools.json");
    return parsed.data;
  });
  const tasks = content.tasks.map((task, i) => {
    const parsed = BundleTaskSchema.safeParse(task);
    if (!parsed.success)
      throw new BundleError(`tasks.jsonl: task ${i}: ${describe(parsed.error)}`, "tasks.jsonl");
    return parsed.data;
  });
  return { ...content, source: source.data, tools, tasks };
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  return issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message;
}
