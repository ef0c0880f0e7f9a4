// PiecewiseEncoder over the real Qwen3 tokenizer: a prompt encoded piece by piece gives exactly the ids of the
// whole text encoded at once (tool JSON, special tokens, multi-byte text, a piece that would merge with
// its neighbour); what repeats is encoded once; callers never share an array; the least recently used
// piece is the one dropped; a tokenizer with no safe boundary encodes whole texts.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "./model-tokenizer.ts";
import { PiecewiseEncoder } from "./piecewise-encoder.ts";

let real: ModelTokenizer;
let tokenizer: ModelTokenizer;
const encoded: string[] = [];
beforeAll(async () => {
  real = await qwen3Tokenizer();
  tokenizer = {
    ...real,
    encode: (text, options) => {
      encoded.push(text);
      return real.encode(text, options);
    },
  };
});

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "search__search",
      description: "Search the web — für Städte",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  },
];

describe("PiecewiseEncoder", () => {
  it("cuts Qwen3 prompts at every special token", () => {
    expect(real.encodeBoundaries).toContain("<|im_start|>");
    expect(real.encodeBoundaries).toContain("<|im_end|>");
    expect(real.encodeBoundaries).not.toContain("<think>"); // an added token, not a special one
  });

  it("gives the ids of the whole text encoded at once, for rendered chats and for odd texts", () => {
    const cache = new PiecewiseEncoder(tokenizer);
    const chat = real.renderChat(
      [
        { role: "system", content: "Answer briefly.  " },
        { role: "user", content: "Question: 東京 or Paris?\n\n" },
        {
          role: "assistant",
          content: "<think>\nhm\n</think>\n\n",
          tool_calls: [{ type: "function", function: { name: "search__search", arguments: { query: "é" } } }],
        },
        { role: "tool", content: "Doc 1 <|im_end|> inside a result 🙂" },
      ],
      { addGenerationPrompt: true, tools: TOOLS },
    );
    const texts = [
      chat,
      // text before and after a special token that BPE would merge if they were one piece
      "  \n\n<|im_start|>\n\n  x<|im_end|><|im_end|>ab<|endoftext|>",
      "<|im_end|>",
      "no special token at all",
      "<|im_start",
    ];
    for (const t of texts) expect(cache.encode(t)).toEqual(real.encode(t));
    expect(cache.encode(chat)).toEqual(real.encode(chat)); // from kept pieces
  });

  it("gives the whole text's ids for any mix of special tokens, added tokens, whitespace and text", () => {
    const cache = new PiecewiseEncoder(tokenizer, { maxEntries: 64 });
    const fragment = fc.oneof(
      fc.constantFrom(
        "<|im_start|>",
        "<|im_end|>",
        "<|endoftext|>",
        "<think>",
        "</tool_call>",
        "<|im_",
        "|>",
        "\n",
        "\n\n",
        "  ",
        "assistant",
        " world",
        "é",
        "e\u0301",
        "🙂",
        "'s",
        "123",
      ),
      fc.string({ unit: "grapheme", maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        expect(cache.encode(text)).toEqual(real.encode(text));
      }),
      { numRuns: 400 },
    );
  });

  it("encodes a repeated piece once, and returns a fresh array each time", () => {
    encoded.length = 0;
    const cache = new PiecewiseEncoder(tokenizer);
    const system = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n";
    const a = `${system}<|im_start|>user\nQuestion: who wrote Hamlet<|im_end|>\n<|im_start|>assistant\n`;
    const b = `${system}<|im_start|>user\nQuestion: who wrote Faust<|im_end|>\n<|im_start|>assistant\n`;
    const first = cache.encode(a);
    first.push(-1); // a caller that appends to its ids
    expect(cache.encode(a)).toEqual(real.encode(a));
    expect(cache.encode(b)).toEqual(real.encode(b));
    // the shared system message and turn headers were encoded once; only b's question is new
    expect(encoded.filter((t) => t.includes("helpful assistant"))).toHaveLength(1);
    expect(encoded.filter((t) => t.includes("Faust"))).toEqual([
      "<|im_start|>user\nQuestion: who wrote Faust",
    ]);
  });

  it("drops the least recently used piece first", () => {
    encoded.length = 0;
    const cache = new PiecewiseEncoder(tokenizer, { maxEntries: 2 });
    for (const t of ["a", "b", "a", "c", "a", "b"]) cache.encode(t);
    // "b" was the least recently used when "c" came, so it is encoded again; "a" never is
    expect(encoded).toEqual(["a", "b", "c", "b"]);
  });

  it("encodes whole texts when the tokenizer has no safe boundary", () => {
    encoded.length = 0;
    const cache = new PiecewiseEncoder({ ...tokenizer, encodeBoundaries: [] });
    const text = "<|im_start|>user\nhi<|im_end|>\n";
    expect(cache.encode(text)).toEqual(real.encode(text));
    expect(encoded).toEqual([text]);
  });
});
