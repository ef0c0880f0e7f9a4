// The benchmark command runs end to end and writes the report shape docs/benchmarks.md describes.
// A smoke test of the harness only: no figure is asserted (speed claims live in the report).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../gateway/harness.ts";

const run = promisify(execFile);

describe("npm run bench -- gateway", () => {
  it("writes throughput, p50 and p99 for every scenario at concurrency 1 and 64, and both ratios", async () => {
    const out = join(tempDir(), "bench.json");
    await run("npm", ["run", "-s", "bench", "--", "gateway", "--out", out, "--requests", "300"], {
      cwd: ROOT,
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    for (const name of ["raw_grpc", "gateway_cached", "direct_mcp", "gateway_uncached"]) {
      for (const c of ["c1", "c64"]) {
        const s = report.scenarios[name][c];
        expect(s, `${name}.${c}`).toMatchObject({ errors: 0, concurrency: c === "c1" ? 1 : 64 });
        expect(s.throughput_per_s).toBeGreaterThan(0);
        expect(s.p99_ms).toBeGreaterThanOrEqual(s.p50_ms);
      }
    }
    expect(typeof report.ratios.cached_vs_raw_grpc).toBe("number");
    expect(typeof report.ratios.uncached_vs_direct_mcp).toBe("number");
  });
});
