import { describe, expect, it, vi } from "vitest";
import { parseLenientJson, scanJsonObjectEnd } from "./lenient-json.ts";

describe("parseLenientJson", () => {
  it("parses strict JSON and JSON5, and explains what is wrong otherwise", () => {
    expect(parseLenientJson('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseLenientJson("{a: 'x', b: [1,],}")).toEqual({ ok: true, value: { a: "x", b: [1] } });
    expect(parseLenientJson('{"a": }')).toEqual({ ok: false, reason: "invalid character '}' at 1:7" });
  });

  it("keeps line separators in JSON5 strings without writing console warnings", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(parseLenientJson("{a: 'x\u2028y\u2029z',\u2028 b: 'q\\\u2028r'}")).toEqual({
        ok: true,
        value: { a: "x\u2028y\u2029z", b: "qr" },
      });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe("scanJsonObjectEnd", () => {
  it("finds the closing brace, skipping brackets and quotes inside strings", () => {
    const text = `{"a": "}]\\"", 'b': ['{'], "c": {"d": 1}} tail`;
    expect(text.slice(0, scanJsonObjectEnd(text, 0))).toBe(`{"a": "}]\\"", 'b': ['{'], "c": {"d": 1}}`);
    expect(scanJsonObjectEnd('{"a": 1', 0)).toBeUndefined();
    expect(scanJsonObjectEnd("x{}", 0)).toBeUndefined();
  });
});
