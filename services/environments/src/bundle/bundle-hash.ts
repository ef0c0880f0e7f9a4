// Digests of a bundle's files and the bundle hash over them.
import { createHash } from "node:crypto";

/** `sha256:<hex>` of a file's bytes. */
export function fileDigest(bytes: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * The bundle hash: sha256 over the lines `<path>\t<digest>\n` of `files` (every file but
 * manifest.json, path → digest), sorted by path (code-unit order).
 */
export function bundleHash(files: Record<string, string>): string {
  const hash = createHash("sha256");
  for (const path of Object.keys(files).sort(compareCodeUnits)) hash.update(`${path}\t${files[path]}\n`);
  return `sha256:${hash.digest("hex")}`;
}

/** Code-unit order (what `Array.prototype.sort` does without a comparator), as a comparator. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
