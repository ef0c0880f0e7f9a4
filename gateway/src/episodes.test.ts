// Episode ids: what they carry, and that anything else is EPISODE_NOT_FOUND (never a crash, never a guess).
import { describe, expect, it } from "vitest";
import { decodeEpisodeId, encodeEpisodeId } from "./episodes.ts";

describe("episode ids", () => {
  it("carry the server, the server's handle and the process generation", () => {
    const ref = { server: "kv", handle: "3f2c-…-π", generation: "a1b2c3d4" };
    const id = encodeEpisodeId(ref);
    expect(id).toMatch(/^ep1\.[A-Za-z0-9_-]+$/);
    expect(decodeEpisodeId(id)).toEqual(ref);
  });

  it.each([
    "",
    "ep1.",
    "ep1.!!!",
    `ep1.${Buffer.from("[1,2]").toString("base64url")}`,
    `ep1.${Buffer.from('{"s":"kv","h":1,"g":""}').toString("base64url")}`,
    `ep2.${Buffer.from('{"s":"kv","h":"x","g":""}').toString("base64url")}`,
    `ep1.${"A".repeat(5_000)}`,
  ])("answers EPISODE_NOT_FOUND for %j", (id) => {
    expect(() => decodeEpisodeId(id)).toThrow(expect.objectContaining({ code: "EPISODE_NOT_FOUND" }));
  });
});
