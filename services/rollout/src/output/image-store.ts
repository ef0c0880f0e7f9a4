// Tool-result images beside the trajectories: `images/<sha256>.png|jpg` under the run directory, one
// file per content hash whichever trajectories (or groups, or runs) show it. A file already there is
// the same bytes by construction and is left as it is; a new one is written to a temporary name and
// renamed, so a reader never sees half an image.
import { randomBytes } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Where an engine puts the images its trajectories refer to (`images[].path`, relative to `dir`). */
export interface ImageStore {
  /** Stores `data` at `path` (relative to the run directory) unless it is there already. */
  put(path: string, data: Uint8Array): Promise<void>;
}

/** The store of a run directory. */
export function directoryImageStore(dir: string): ImageStore {
  return {
    async put(path, data) {
      const file = join(dir, path);
      if (await exists(file)) return;
      await mkdir(dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(tmp, data);
      await rename(tmp, file);
    },
  };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}
