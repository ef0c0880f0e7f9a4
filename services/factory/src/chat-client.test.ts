// The JSON a model reply holds, and the per-item request seed.
import { describe, expect, it } from "vitest";
import { extractJson, requestSeed } from "./chat-client.ts";

describe("extractJson", () => {
  it("reads plain JSON, a fenced block, JSON inside prose, and JSON after a reasoning model's thinking", () => {
    expect(extractJson('{"code": "x"}')).toEqual({ code: "x" });
    expect(extractJson('Here it is:\n```json\n{"code": "x"}\n```\nDone.')).toEqual({ code: "x" });
    expect(extractJson('Sure. {"a": {"b": 1}} Hope this helps')).toEqual({ a: { b: 1 } });
    expect(extractJson('<think>maybe {"a": 0}? no, {"a": 1}</think>\n{"a": 2}')).toEqual({ a: 2 });
  });

  it("says when a reply holds no JSON", () => {
    expect(() => extractJson("Sure! Here is the decomposition you asked for.")).toThrow(/not JSON/);
  });
});

describe("requestSeed", () => {
  it("is the same for the same build seed and item, and differs between items and seeds", () => {
    expect(requestSeed(7, "deploy:t1.a")).toBe(requestSeed(7, "deploy:t1.a"));
    expect(requestSeed(7, "deploy:t1.a")).not.toBe(requestSeed(7, "deploy:t1.b"));
    expect(requestSeed(7, "deploy:t1.a")).not.toBe(requestSeed(8, "deploy:t1.a"));
    expect(requestSeed(7, "x")).toBeLessThan(2 ** 31);
  });
});
