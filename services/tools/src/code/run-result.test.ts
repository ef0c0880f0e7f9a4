// How a finished run is classified, from what the sandbox observed: in particular every way a
// JavaScript run reports running out of memory (V8's heap limit, a refused ArrayBuffer, V8 aborting
// when the data rlimit refuses it memory, allocation failures of its own) is memory_limit.
import { describe, expect, it } from "vitest";
import { classify, type RunObservation } from "./run-result.ts";

const exited = (exitCode: number | null, stderr = ""): RunObservation => ({
  exitCode,
  stderr,
  wallTimeout: false,
  outputExceeded: false,
  setupFailed: false,
});

// What Node 22 wrote to stderr in each case (abridged to the lines that matter), in a 128 MiB sandbox.
const V8_HEAP_LIMIT =
  "<--- Last few GCs --->\n\n<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n";
const V8_NEW_SPACE =
  "<--- JS stacktrace --->\n\nFATAL ERROR: NewSpace::EnsureCurrentCapacity Allocation failed - JavaScript heap out of memory\n";
const V8_DATA_RLIMIT =
  "\n\n#\n# Fatal error in , line 0\n# Check failed: (result.ptr) != nullptr.\n#\n#\n#\n#FailureMessage Object: 0x7ffd9b1541e0\n----- Native stack trace -----\n";
const BUFFER =
  "node:internal/buffer:1089\n\nRangeError: Array buffer allocation failed\n    at createUnsafeBuffer (node:internal/buffer:1089:25)\n";
const V8_PROCESS_OOM =
  "FATAL ERROR: Committing semi space failed. Allocation failed - process out of memory\n";

describe("classifying a run", () => {
  it.each([
    ["V8's heap limit", 134, V8_HEAP_LIMIT],
    ["V8's new space", 134, V8_NEW_SPACE],
    ["V8 aborting on memory the data rlimit refused", 133, V8_DATA_RLIMIT],
    ["a refused ArrayBuffer", 1, BUFFER],
    ["V8 out of process memory", 134, V8_PROCESS_OOM],
    [
      "Python's MemoryError",
      1,
      'Traceback (most recent call last):\n  File "/sandbox/main.py"\nMemoryError\n',
    ],
  ])("%s is memory_limit", (_what, code, stderr) => {
    expect(classify(exited(code, stderr))).toBe("memory_limit");
  });

  it("a process the memory cgroup's OOM killer ended is memory_limit, whatever it wrote", () => {
    expect(classify({ ...exited(137), memoryExhausted: true })).toBe("memory_limit");
    expect(classify(exited(137))).toBe("runtime_error");
  });

  it("other failures stay what they are", () => {
    expect(classify(exited(1, "Error: boom\n"))).toBe("runtime_error");
    expect(classify(exited(133, "# Fatal error in , line 0\n# Check failed: index < length.\n"))).toBe(
      "runtime_error",
    );
    expect(classify(exited(0))).toBe("ok");
    expect(classify({ ...exited(null), wallTimeout: true, memoryExhausted: true })).toBe("timeout");
    expect(classify(exited(152))).toBe("timeout"); // SIGXCPU
  });
});
