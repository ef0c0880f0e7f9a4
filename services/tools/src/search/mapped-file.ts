// Files mapped read-only into memory (mmap, PROT_READ + MAP_SHARED) through the @rlfactory/mmap native
// addon (services/mmap): the pages belong to the page cache, so every thread and process that maps one
// file shares one copy, and only the pages a query touches are read from disk. The mapping's length is
// 64-bit: files of any size map. When the addon cannot load, `mmapAddon()` says why and the caller reads
// the files instead.
import { closeSync, fstatSync, openSync } from "node:fs";
import { mmapAddon as loadMmapAddon, type MmapAddon } from "@rlfactory/mmap";

let addon: { mmap: MmapAddon } | { reason: string } | undefined;

/** The addon, or why it did not load (loaded once per thread). */
export function mmapAddon(): { mmap: MmapAddon } | { reason: string } {
  if (addon === undefined) {
    try {
      addon = { mmap: loadMmapAddon() };
    } catch (err) {
      addon = { reason: `@rlfactory/mmap did not load: ${(err as Error).message.split("\n")[0]}` };
    }
  }
  return addon;
}

/**
 * Maps `bytes` bytes of `path` read-only and returns them as an ArrayBuffer (page-aligned, so any typed
 * array view fits). The mapping lives as long as the buffer; the file descriptor is closed at once.
 */
export function mapFile(mmap: MmapAddon, path: string, bytes: number): ArrayBuffer {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new RangeError(`${path}: cannot map ${bytes} bytes`);
  const fd = openSync(path, "r");
  try {
    // A file of another size (replaced since it was first opened) would fault past its end: refuse it.
    const size = fstatSync(fd).size;
    if (size !== bytes) throw new Error(`${path}: ${size} bytes, expected ${bytes}`);
    const mapped = mmap.mapFd(fd, bytes);
    if (mapped.byteLength !== bytes) throw new Error(`${path}: unexpected mapping`);
    return mapped;
  } finally {
    closeSync(fd);
  }
}
