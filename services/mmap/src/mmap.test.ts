// The addon maps files of any size: a 5 GiB sparse file (no disk used) reads back, through typed array
// views, the bytes written before 2 GiB, past 2 GiB and past 4 GiB, where a C `int` length cannot reach.
// The mapping goes when its buffer is collected, and the system's refusals come back as errors.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { mmapAddon } from "./index.ts";

const tmp = mkdtempSync(join(tmpdir(), "rlf-mmap-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const GiB = 2 ** 30;
const SIZE = 5 * GiB;
const PAST_4_GIB = 4 * GiB + 4096;
/** Known bytes at known offsets: near the start, past 2 GiB, past 4 GiB, and the last byte. */
const MARKS: [offset: number, bytes: number[]][] = [
  [3, [0x11, 0x22, 0x33]],
  [2 * GiB + 5, [0x44, 0x55]],
  [PAST_4_GIB + 8, [0x66, 0x77, 0x88, 0x99]],
  [SIZE - 1, [0xaa]],
];

/** A file of `size` bytes, all holes but `marks`. */
function sparseFile(name: string, size: number, marks: [number, number[]][]): string {
  const path = join(tmp, name);
  closeSync(openSync(path, "w"));
  truncateSync(path, size);
  const fd = openSync(path, "r+");
  try {
    for (const [offset, bytes] of marks) writeSync(fd, Uint8Array.from(bytes), 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
  return path;
}

describe("mapFd", () => {
  it("maps a 5 GiB sparse file whole and reads the bytes written before 2 GiB, past 2 GiB and past 4 GiB", () => {
    const path = sparseFile("sparse-5GiB.bin", SIZE, MARKS);
    // Sparse: the file holds 5 GiB, but only the pages written use disk.
    expect(statSync(path).size).toBe(SIZE);
    expect(statSync(path).blocks * 512).toBeLessThan(1 << 20);
    const fd = openSync(path, "r");
    const buffer = mmapAddon().mapFd(fd, SIZE, { random: true });
    closeSync(fd); // the mapping outlives the descriptor
    expect(buffer.byteLength).toBe(SIZE);
    const all = new Uint8Array(buffer);
    expect(all.length).toBe(SIZE);
    for (const [offset, bytes] of MARKS)
      expect([...all.subarray(offset, offset + bytes.length)]).toEqual(bytes);
    // A view that starts past 4 GiB sees the same bytes at its own indices (little-endian words).
    const words = new Uint32Array(buffer, PAST_4_GIB, 4);
    expect([...words]).toEqual([0, 0, 0x99887766, 0]);
    // A hole reads as zeros.
    expect(all[3 * GiB]).toBe(0);
  });

  it("throws the system's refusal with its errno: a closed descriptor, a file opened write-only", () => {
    const path = sparseFile("small.bin", 4096, [[0, [1]]]);
    const closed = openSync(path, "r");
    closeSync(closed);
    expect(() => mmapAddon().mapFd(closed, 4096)).toThrow(
      expect.objectContaining({
        syscall: "mmap",
        errno: 9,
        message: expect.stringMatching(/^mmap: .+ \(errno 9\)$/),
      }),
    );
    const writeOnly = openSync(path, "w");
    try {
      // EACCES: a read mapping needs a descriptor open for reading.
      expect(() => mmapAddon().mapFd(writeOnly, 4096)).toThrow(expect.objectContaining({ errno: 13 }));
    } finally {
      closeSync(writeOnly);
    }
    expect(() => mmapAddon().mapFd(0, 0)).toThrow(RangeError);
  });

  it("unmaps the file once its buffer is collected", () => {
    const path = sparseFile("collected.bin", 1 << 20, [[0, [7]]]);
    // In a child process with gc() exposed: the mapping shows in /proc/self/maps while the buffer lives,
    // and is gone after the buffer is collected (finalizers run on a later turn: wait for that turn).
    const script =
      `import { closeSync, openSync, readFileSync } from "node:fs";` +
      `import { setImmediate as turn } from "node:timers/promises";` +
      `import { mmapAddon } from ${JSON.stringify(fileURLToPath(new URL("./index.ts", import.meta.url)))};` +
      `const path = process.argv[1];` +
      `const mapped = () => readFileSync("/proc/self/maps", "utf8").split("\\n").filter((l) => l.endsWith(path)).length;` +
      `const fd = openSync(path, "r"); let buffer = mmapAddon().mapFd(fd, 1 << 20); closeSync(fd);` +
      `const during = mapped(); const first = new Uint8Array(buffer)[0]; buffer = undefined;` +
      `let turns = 0; while (mapped() > 0 && turns < 100) { globalThis.gc(); await turn(); turns++; }` +
      `console.log(JSON.stringify({ during, first, after: mapped() }));`;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script, path], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ during: 1, first: 7, after: 0 });
  });
});
