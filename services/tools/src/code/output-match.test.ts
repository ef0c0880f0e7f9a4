// Test-case output comparison: trailing whitespace and line endings do not matter, content does.
import { describe, expect, it } from "vitest";
import { outputMatches } from "./output-match.ts";

describe("outputMatches", () => {
  it("ignores trailing whitespace on lines and at the end, and CRLF line endings", () => {
    expect(outputMatches("1 2 \r\n3\n\n", "1 2\n3")).toBe(true);
    expect(outputMatches("42", "42\n")).toBe(true);
  });

  it("keeps leading whitespace, inner whitespace and line structure significant", () => {
    expect(outputMatches(" 42", "42")).toBe(false);
    expect(outputMatches("1  2", "1 2")).toBe(false);
    expect(outputMatches("1\n2", "1 2")).toBe(false);
    expect(outputMatches("\n42", "42")).toBe(false);
  });
});
