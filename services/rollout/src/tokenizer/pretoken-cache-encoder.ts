// Encodes text as the library does, pre-token by pre-token, with the ids of recent pre-tokens kept. For a
// byte-level BPE tokenizer whose pre-tokenizer is a regex Split then ByteLevel (Qwen2/Qwen3), BPE never
// merges across pre-tokens, so the ids of a text are the ids of its pre-tokens one after another. Tool
// results rarely repeat whole but their words do: each pre-token (" the", "42"'s digits, " {\"") is looked
// up by its text, and a miss is encoded alone by the library (its BPE merges, its byte mapping) and kept.
// The text is cut as the library cuts it: at its added tokens first (longest match at the leftmost place,
// as the library's splitter does), then with the library's own Split pre-tokenizer built from the
// tokenizer.json's pattern. Texts the normalizer would change go to the library whole.

import type { Tokenizer } from "@huggingface/tokenizers";
import * as tokenizers from "@huggingface/tokenizers";
import { PieceIdCache } from "./piece-id-cache.ts";

/** The library's Split pre-tokenizer (exported at run time; its .d.ts re-export does not resolve under nodenext). */
interface SplitPreTokenizer {
  pre_tokenize_text(text: string): string[];
}
const { SplitPreTokenizer } = tokenizers as unknown as {
  SplitPreTokenizer: new (config: Record<string, unknown>) => SplitPreTokenizer;
};

export interface PretokenCacheEncoderOptions {
  /** Pre-tokens kept at most (the least recently used dropped first); default 65536. */
  maxEntries?: number;
  /** Pre-tokens longer than this are encoded every time, never kept; default 64. */
  maxPieceChars?: number;
}

interface AddedTokenJson {
  content: string;
  special?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
  normalized?: boolean;
}

interface TokenizerJsonParts {
  added_tokens: readonly AddedTokenJson[];
  normalizer?: unknown;
  pre_tokenizer?: unknown;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// NFC leaves text without these code units (from the first combining mark up) as it is
const MAY_CHANGE_UNDER_NFC = /[\u0300-\uffff]/;

export class PretokenCacheEncoder {
  readonly #tokenizer: Tokenizer;
  readonly #split: SplitPreTokenizer;
  /** Matches each added token, longest first (undefined: none). */
  readonly #added: RegExp | undefined;
  readonly #addedIds: ReadonlyMap<string, number>;
  readonly #nfc: boolean;
  readonly #pieces: PieceIdCache;

  /**
   * The encoder for `tokenizer` built from `tokenizerJson`, or undefined when the fast path would not give
   * the library's ids for every text: a pre-tokenizer other than Sequence[Split(regex, Isolated), ByteLevel
   * without prefix space or regex], a normalizer other than NFC, an added token that strips, matches whole
   * words only or is matched after normalization, or a config that removes spaces or lowercases.
   */
  static create(
    tokenizer: Tokenizer,
    tokenizerJson: TokenizerJsonParts,
    tokenizerConfig: Record<string, unknown>,
    options: PretokenCacheEncoderOptions = {},
  ): PretokenCacheEncoder | undefined {
    const pre = tokenizerJson.pre_tokenizer as
      | { type?: unknown; pretokenizers?: readonly Record<string, unknown>[] }
      | null
      | undefined;
    if (pre?.type !== "Sequence" || pre.pretokenizers?.length !== 2) return;
    const [split, byteLevel] = pre.pretokenizers as [Record<string, unknown>, Record<string, unknown>];
    const pattern = split.pattern as { Regex?: unknown } | undefined;
    if (
      split.type !== "Split" ||
      typeof pattern?.Regex !== "string" ||
      split.behavior !== "Isolated" ||
      split.invert === true
    )
      return;
    if (
      byteLevel.type !== "ByteLevel" ||
      byteLevel.add_prefix_space === true ||
      byteLevel.use_regex !== false
    )
      return;
    const normalizer = tokenizerJson.normalizer as { type?: unknown } | null | undefined;
    const nfc = normalizer?.type === "NFC";
    if (normalizer !== null && normalizer !== undefined && !nfc) return;
    if (tokenizerConfig.remove_space === true || tokenizerConfig.do_lowercase_and_remove_accent === true)
      return;
    for (const t of tokenizerJson.added_tokens) {
      if (t.lstrip === true || t.rstrip === true || t.single_word === true) return;
      // the library matches these in normalized text (after NFC), with its second splitter
      if ((t.normalized ?? t.special !== true) && nfc) return;
    }
    return new PretokenCacheEncoder(tokenizer, split, tokenizerJson.added_tokens, nfc, options);
  }

  private constructor(
    tokenizer: Tokenizer,
    split: Record<string, unknown>,
    addedTokens: readonly AddedTokenJson[],
    nfc: boolean,
    options: PretokenCacheEncoderOptions,
  ) {
    this.#tokenizer = tokenizer;
    // the library's own Split, from the tokenizer.json's pattern (its regex dialect rewritten by the library)
    this.#split = new SplitPreTokenizer(split);
    const contents = addedTokens.map((t) => t.content).filter((c) => c.length > 0);
    contents.sort((a, b) => b.length - a.length);
    this.#added = contents.length === 0 ? undefined : new RegExp(contents.map(escapeRegExp).join("|"), "g");
    const ids = new Map<string, number>();
    for (const c of contents) {
      const id = tokenizer.token_to_id(c);
      if (id !== undefined) ids.set(c, id);
    }
    this.#addedIds = ids;
    this.#nfc = nfc;
    this.#pieces = new PieceIdCache(
      (piece) => this.#library(piece),
      options.maxEntries ?? 65536,
      options.maxPieceChars ?? 64,
    );
  }

  /** Pre-tokens kept now. */
  get size(): number {
    return this.#pieces.size;
  }

  /** `tokenizer.encode(text, { add_special_tokens: false }).ids` (a fresh array). */
  encode(text: string): number[] {
    if (this.#nfc && MAY_CHANGE_UNDER_NFC.test(text) && text.normalize("NFC") !== text)
      return this.#library(text);
    const ids: number[] = [];
    const added = this.#added;
    if (added === undefined) {
      this.#section(ids, text);
      return ids;
    }
    added.lastIndex = 0;
    let from = 0;
    for (let m = added.exec(text); m !== null; m = added.exec(text)) {
      if (m.index > from) this.#section(ids, text.slice(from, m.index));
      const id = this.#addedIds.get(m[0]);
      if (id === undefined) return this.#library(text);
      ids.push(id);
      from = m.index + m[0].length;
    }
    if (from < text.length) this.#section(ids, from === 0 ? text : text.slice(from));
    return ids;
  }

  #library(text: string): number[] {
    return this.#tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  #section(ids: number[], section: string): void {
    const pieces = this.#split.pre_tokenize_text(section);
    for (let p = 0; p < pieces.length; p++) this.#pieces.append(ids, pieces[p]!);
  }
}
