// Files mapped read-only into memory (mmap, PROT_READ + MAP_SHARED) through the @riaskov/mmap-io native
// addon: the pages belong to the page cache, so every thread and process that maps one file shares one
// copy, and only the pages a query touches are read from disk. When the addon cannot load, `mmapAddon()`
// says why and the caller reads the files instead.
import { closeSync, fstatSync, openSync } from "node:fs";
import { createRequire } from "node:module";

interface MmapIo {
  map(size: number, protection: number, flags: number, fd: number, offset?: number): Buffer;
  readonly PROT_READ: number;
  readonly MAP_SHARED: number;
}

/**
 * The largest file one mapping can cover: the addon takes the length and offset as C `int`s, so a
 * file of 2 GiB or more is read instead (index-store.ts logs which).
 */
export const MAX_MAPPED_BYTES = 2 ** 31 - 1;

let addon: { mmap: MmapIo } | { reason: string } | undefined;

/** The addon, or why it did not load (loaded once per thread). */
export function mmapAddon(): { mmap: MmapIo } | { reason: string } {
  if (addon === undefined) {
    try {
      const mmap = createRequire(import.meta.url)("@riaskov/mmap-io") as MmapIo;
      addon = typeof mmap.map === "function" ? { mmap } : { reason: "@riaskov/mmap-io has no map()" };
    } catch (err) {
      addon = { reason: `@riaskov/mmap-io did not load: ${(err as Error).message.split("\n")[0]}` };
    }
  }
  return addon;
}

/**
 * Maps `bytes` bytes of `path` read-only and returns them as an ArrayBuffer (page-aligned, so any typed
 * array view fits). The mapping lives as long as the buffer; the file descriptor is closed at once.
 */
export function mapFile(mmap: MmapIo, path: string, bytes: number): ArrayBuffer {
  if (bytes <= 0 || bytes > MAX_MAPPED_BYTES) throw new RangeError(`${path}: cannot map ${bytes} bytes`);
  const fd = openSync(path, "r");
  try {
    // A file of another size (replaced since it was first opened) would fault past its end: refuse it.
    const size = fstatSync(fd).size;
    if (size !== bytes) throw new Error(`${path}: ${size} bytes, expected ${bytes}`);
    const mapped = mmap.map(bytes, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0);
    if (mapped.byteOffset !== 0 || mapped.length !== bytes) throw new Error(`${path}: unexpected mapping`);
    return mapped.buffer as ArrayBuffer;
  } finally {
    closeSync(fd);
  }
}
