import { describe, expect, it } from "vitest";
import { ApiKeyAuth } from "./auth.ts";

describe("ApiKeyAuth", () => {
  it("accepts anything when no keys are configured", () => {
    expect(new ApiKeyAuth([]).check(undefined)).toBe(true);
  });
  it("accepts only a configured bearer key", () => {
    const auth = new ApiKeyAuth(["secret-key-1", "secret-key-2"]);
    expect(auth.check("Bearer secret-key-2")).toBe(true);
    expect(auth.check("bearer secret-key-1")).toBe(true);
    expect(auth.check("Bearer secret-key-3")).toBe(false);
    expect(auth.check("secret-key-1")).toBe(false);
    expect(auth.check(undefined)).toBe(false);
  });
});
