// Encodes rendered chat prompts piece by piece, with the ids of recent pieces kept. A rendered prompt is
// cut before each of the tokenizer's `encodeBoundaries` (for Qwen3 `<|im_start|>`, `<|im_end|>`, ...),
// where encoding splits exactly, so the ids are those of the whole text encoded at once; each piece (a
// message, a turn's end) is looked up by its exact text. What repeats across requests — the system
// prompt with the tools, a group's shared question, a tool result sent again, the template's turn
// headers — is encoded once. Least recently used pieces go first.
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";

/** Pieces longer than this are encoded every time, not kept. */
const MAX_PIECE_CHARS = 64 * 1024;

export class PromptCache {
  readonly #tokenizer: ModelTokenizer;
  readonly #max: number;
  readonly #entries = new Map<string, readonly number[]>();
  /** Matches just before each boundary token (a zero-width cut); undefined: encode whole texts. */
  readonly #cut: RegExp | undefined;

  constructor(tokenizer: ModelTokenizer, max = 4096) {
    this.#tokenizer = tokenizer;
    this.#max = max;
    const boundaries = tokenizer.encodeBoundaries;
    this.#cut =
      boundaries.length === 0
        ? undefined
        : new RegExp(`(?=${boundaries.map((b) => b.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`);
  }

  /** `tokenizer.encode(text)` (no special tokens added), from kept pieces where it can (a fresh array). */
  encode(text: string): number[] {
    if (this.#cut === undefined) return this.#piece(text).slice();
    const ids: number[] = [];
    for (const piece of text.split(this.#cut)) {
      if (piece.length === 0) continue;
      const pieceIds = this.#piece(piece);
      for (let i = 0; i < pieceIds.length; i++) ids.push(pieceIds[i]!);
    }
    return ids;
  }

  #piece(text: string): readonly number[] {
    if (text.length > MAX_PIECE_CHARS) return this.#tokenizer.encode(text);
    const hit = this.#entries.get(text);
    if (hit !== undefined) {
      this.#entries.delete(text);
      this.#entries.set(text, hit);
      return hit;
    }
    const ids = this.#tokenizer.encode(text);
    this.#entries.set(text, ids);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    return ids;
  }
}
