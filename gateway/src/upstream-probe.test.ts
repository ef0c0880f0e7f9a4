// The server/discover probe's budget: never below 3 s, stretched by load per core, doubled per failed
// attempt in a row, never past the connect timeout (so a slow machine gets there instead of failing the
// same way forever).
import { describe, expect, it } from "vitest";
import { probeTimeoutMs } from "./upstream.ts";

describe("probeTimeoutMs", () => {
  it("grows with load and with failed attempts, up to the connect timeout", () => {
    expect(probeTimeoutMs(0, 30_000, 0.2)).toBe(3_000);
    expect(probeTimeoutMs(0, 30_000, 7.5)).toBe(22_500);
    expect([0, 1, 2, 3, 4].map((f) => probeTimeoutMs(f, 30_000, 1))).toEqual([
      3_000, 6_000, 12_000, 24_000, 30_000,
    ]);
    expect(probeTimeoutMs(50, 1_000, 1)).toBe(3_000);
  });
});
