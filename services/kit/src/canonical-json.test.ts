import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";

describe("canonicalJson", () => {
  it("ignores key order at every depth", () => {
    const a = canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: "s" } });
    const b = canonicalJson({ a: { c: "s", d: [1, { x: 1, y: 2 }] }, b: 1 });
    expect(a).toBe(b);
    expect(a).toBe('{"a":{"c":"s","d":[1,{"x":1,"y":2}]},"b":1}');
  });
  it("keeps array order and distinguishes types", () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
  });
  it("drops undefined members like JSON.stringify does", () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
});

describe("canonicalJson with a string normaliser", () => {
  const trim = (s: string) => s.trim();
  it("rewrites string values at every depth, never keys", () => {
    expect(canonicalJson({ " k": [" a ", { b: " c" }], n: 1 }, trim)).toBe('{" k":["a",{"b":"c"}],"n":1}');
  });
  it("leaves the text unchanged when the strings are already normal", () => {
    const value = { b: ["x", { y: "z" }], a: null };
    expect(canonicalJson(value, trim)).toBe(canonicalJson(value));
  });
});
