// A tiny byte-level BPE tokenizer (256 byte ids, no merges, plus ChatML's special tokens) written as a
// Hugging Face model directory: a tokenizer that is NOT Qwen3's, for tests of the rollout's tokenizer
// check (serve it with `startSimulatedLlm({ tokenizer })` or `rlf-sim llm --tokenizer DIR`).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A ChatML template that renders `tools` (like Qwen's, shorter). */
export const CHATML_WITH_TOOLS_TEMPLATE =
  "{%- if tools %}<|im_start|>system\n<tools>{% for t in tools %}{{ t | tojson }}{% endfor %}</tools><|im_end|>\n{% endif %}" +
  "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}" +
  "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/** A ChatML template that ignores `tools` (as SmolLM2's does). */
export const CHATML_WITHOUT_TOOLS_TEMPLATE =
  "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}" +
  "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/** GPT-2's byte → printable character map (the byte-level BPE alphabet). */
function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const chars = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    chars[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return chars;
}

/** Writes tokenizer.json and tokenizer_config.json into `dir` (created); returns `dir`. */
export function writeByteTokenizer(dir: string, options: { chatTemplate?: string } = {}): string {
  mkdirSync(dir, { recursive: true });
  const vocab: Record<string, number> = {};
  bytesToUnicode().forEach((c, b) => {
    vocab[c] = b;
  });
  const special = ["<|im_start|>", "<|im_end|>", "<|endoftext|>"];
  const added = special.map((content, i) => ({
    id: 256 + i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const tokenizerJson = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
  const config = {
    add_prefix_space: false,
    bos_token: null,
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
    unk_token: null,
    model_max_length: 2048,
    tokenizer_class: "GPT2Tokenizer",
    chat_template: options.chatTemplate ?? CHATML_WITH_TOOLS_TEMPLATE,
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config));
  return dir;
}
