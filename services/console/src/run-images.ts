// A run's tool-result images: the bytes `rlf rollout` stores by content hash under the run directory
// (`images/<sha256>.<ext>`, services/rollout/src/output/image-store.ts). An image is named by its hash
// only, never by a path, so nothing outside `images/` can be read; the content type follows the
// stored extension, and an extension that is not a raster type the console knows is served as bytes.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Trajectory } from "@rlfactory/contracts";

/** A SHA-256 in lowercase hex, as the trajectory record writes `images[].sha256`. */
export const IMAGE_SHA256 = /^[0-9a-f]{64}$/;

/** Raster types a browser shows; anything else (an `svgxml` could run script) is application/octet-stream. */
const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
};

export interface RunImage {
  bytes: Buffer;
  contentType: string;
}

/** The stored image with this hash in run directory `dir`; undefined when there is none. */
export async function readRunImage(dir: string, sha256: string): Promise<RunImage | undefined> {
  if (!IMAGE_SHA256.test(sha256)) return undefined;
  const folder = join(dir, "images");
  const names = await readdir(folder).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return [] as string[];
    throw err;
  });
  const name = names.find((n) => /^[a-z0-9]+$/.test(n.slice(65)) && n.startsWith(`${sha256}.`));
  if (name === undefined) return undefined;
  return {
    bytes: await readFile(join(folder, name)),
    contentType: IMAGE_TYPES[name.slice(65)] ?? "application/octet-stream",
  };
}

/** Where the app fetches an image (GET /api/runs/RUN/images/SHA256); report.html inlines the same key. */
export function runImagePath(run: string, sha256: string): string {
  return `/api/runs/${encodeURIComponent(run)}/images/${sha256}`;
}

/**
 * The images of `trajectories` as data URLs for report.html, keyed by their API path: each hash once,
 * in record order, while the bytes so far stay within `maxBytes` (an image past it is left out, and
 * the view says so). Images whose bytes are missing are left out too.
 */
export async function inlineRunImages(
  dir: string,
  run: string,
  trajectories: readonly Trajectory[],
  maxBytes: number,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let total = 0;
  for (const t of trajectories) {
    for (const image of t.images ?? []) {
      const key = runImagePath(run, image.sha256);
      if (key in out) continue;
      const found = await readRunImage(dir, image.sha256);
      if (found === undefined || !found.contentType.startsWith("image/")) continue;
      if (total + found.bytes.length > maxBytes) continue;
      total += found.bytes.length;
      out[key] = `data:${found.contentType};base64,${found.bytes.toString("base64")}`;
    }
  }
  return out;
}
