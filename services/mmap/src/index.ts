// Read-only memory maps of files of any size, through this package's Node-API addon (src/mmap.c,
// built by node-gyp when the package is installed). The addon loads on first use, so a process where
// it was never built can still import this module and fall back (mapAddon() throws, saying why).
import { createRequire } from "node:module";

interface Addon {
  map(fd: number, length: number, random?: boolean): ArrayBuffer;
}

/** The addon's functions: mapFd maps an open file descriptor. */
export interface MmapAddon {
  /**
   * Maps the first `length` bytes of the open file `fd` (offset 0) read-only and shared (PROT_READ,
   * MAP_SHARED) and returns them as an ArrayBuffer (page-aligned, so any typed array view fits). The
   * length is 64-bit: files over 2 and 4 GiB map. The mapping lives as long as the buffer (its
   * finalizer unmaps it); `fd` may be closed at once. `random: true` adds madvise(MADV_RANDOM).
   * Throws an Error with `syscall` and `errno` when the system refuses.
   */
  mapFd(fd: number, length: number, options?: { random?: boolean }): ArrayBuffer;
}

/** Where node-gyp puts the addon, relative to this file. */
export const ADDON_PATH = "../build/Release/mmap.node";

let loaded: MmapAddon | Error | undefined;

/** The addon (loaded once per thread), or throws the Error it failed to load with. */
export function mmapAddon(): MmapAddon {
  if (loaded === undefined) {
    try {
      const addon = createRequire(import.meta.url)(ADDON_PATH) as Addon;
      if (typeof addon.map !== "function") throw new Error(`${ADDON_PATH} has no map()`);
      loaded = {
        mapFd: (fd, length, options) => {
          if (!Number.isSafeInteger(length) || length <= 0)
            throw new RangeError(`cannot map ${length} bytes: a positive integer is needed`);
          return addon.map(fd, length, options?.random === true);
        },
      };
    } catch (err) {
      loaded = err instanceof Error ? err : new Error(String(err));
    }
  }
  if (loaded instanceof Error) throw loaded;
  return loaded;
}
