import { describe, expect, it } from "vitest";
import { PieceIdCache } from "./piece-id-cache.ts";

describe("PieceIdCache", () => {
  const counting = () => {
    const encoded: string[] = [];
    const cache = new PieceIdCache(
      (piece) => {
        encoded.push(piece);
        return [...piece].map((c) => c.codePointAt(0)!);
      },
      6,
      8,
    );
    return { encoded, cache };
  };

  it("keeps a piece that is used in every stretch of new pieces, drops the ones that are not, and never holds more than the bound", () => {
    const { encoded, cache } = counting();
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) {
      cache.append(ids, "hot");
      cache.append(ids, `cold${i}`);
      expect(cache.size).toBeLessThanOrEqual(6);
    }
    expect(encoded.filter((p) => p === "hot")).toHaveLength(1);
    // an early cold piece was dropped long ago: it is encoded again
    cache.append(ids, "cold0");
    expect(encoded.filter((p) => p === "cold0")).toHaveLength(2);
    // ids as the encoder gives them, in order
    expect(ids.slice(0, 8)).toEqual([..."hotcold0"].map((c) => c.codePointAt(0)));
  });

  it("encodes pieces longer than the limit every time and never keeps them", () => {
    const { encoded, cache } = counting();
    const ids: number[] = [];
    cache.append(ids, "a long piece");
    cache.append(ids, "a long piece");
    expect(encoded).toEqual(["a long piece", "a long piece"]);
    expect(cache.size).toBe(0);
  });
});
