// PromptCache over the real Qwen3 tokenizer: a repeated prompt is encoded once and gives the same ids,
// callers never share an array, and the least recently used prompt is the one dropped.
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { PromptCache } from "./prompt-cache.ts";

let tokenizer: ModelTokenizer;
const encoded: string[] = [];
beforeAll(async () => {
  const real = await qwen3Tokenizer();
  tokenizer = {
    ...real,
    encode: (text, options) => {
      encoded.push(text);
      return real.encode(text, options);
    },
  };
});

describe("PromptCache", () => {
  it("encodes a group's identical first prompt once, with the tokenizer's ids, in a fresh array each time", () => {
    encoded.length = 0;
    const cache = new PromptCache(tokenizer);
    const text = "<|im_start|>user\nQuestion: who wrote Hamlet<|im_end|>\n<|im_start|>assistant\n";
    const first = cache.encode(text);
    first.push(-1); // a caller that appends to its ids
    const second = cache.encode(text);
    expect(second).toEqual(tokenizer.encode(text));
    expect(encoded.filter((t) => t === text)).toHaveLength(2); // the cache's one, and the check's
  });

  it("drops the least recently used prompt first", () => {
    encoded.length = 0;
    const cache = new PromptCache(tokenizer, 2);
    for (const t of ["a", "b", "a", "c", "a", "b"]) cache.encode(t);
    // "b" was the least recently used when "c" came, so it is encoded again; "a" never is
    expect(encoded).toEqual(["a", "b", "c", "b"]);
  });
});
