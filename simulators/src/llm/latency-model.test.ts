import { rngStream } from "@rlfactory/kit";
import { describe, expect, it } from "vitest";
import { latencyOptionsSchema, parseTurnMs, requestDelayMs } from "./latency-model.ts";

const draws = (...values: number[]) => {
  let i = 0;
  return () => values[i++]!;
};

describe("latency model", () => {
  it("length-based: time to first token plus tokens at the given rate; 0 is instant", () => {
    const l = latencyOptionsSchema.parse({ ttftMs: 100, tokensPerS: 50 });
    expect(requestDelayMs(l, 25, draws(0.3, 0.9))).toBe(100 + 500);
    expect(requestDelayMs(latencyOptionsSchema.parse({}), 1000, draws(0.3, 0.9))).toBe(0);
  });

  it("turnMs: uniform in [min, max] whatever the length; the tail multiplies the whole request", () => {
    const l = latencyOptionsSchema.parse({ turnMs: [200, 600], tailProb: 0.1, tailMult: 10, ttftMs: 9999 });
    expect(requestDelayMs(l, 1, draws(0.5, 0.5))).toBe(400);
    expect(requestDelayMs(l, 5000, draws(0, 0.05))).toBe(2000);
    const random = rngStream(7);
    for (let i = 0; i < 200; i++) {
      const d = requestDelayMs({ ...l, tailProb: 0 }, i, random);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(600);
    }
  });

  it("parses --turn-ms and rejects nonsense", () => {
    expect(parseTurnMs("200-800")).toEqual([200, 800]);
    expect(parseTurnMs("50")).toEqual([50, 50]);
    expect(() => parseTurnMs("800-200")).toThrow(/greater than MAX/);
    expect(() => parseTurnMs("fast")).toThrow(/MIN-MAX/);
    expect(() => latencyOptionsSchema.parse({ turnMs: [5, 1] })).toThrow(/min must be/);
  });
});
