// Encodes rendered chat text piece by piece, with the ids of recent pieces kept. A text is cut before
// each of the tokenizer's `encodeBoundaries` (for Qwen3 `<|im_start|>`, `<|im_end|>`, ...), where
// encoding splits exactly, so the ids are those of the whole text encoded at once; each piece (a
// message, a turn's end) is looked up by its exact text. What repeats — the system prompt with the
// tools, a group's shared question, a tool result sent again, the template's turn headers — is encoded
// once. Least recently used pieces go first. Used by the capture endpoint (every prompt and
// observation) and by the rollout engine (first prompts, observation deltas).
import type { ModelTokenizer } from "./model-tokenizer.ts";
import { PieceIdCache } from "./piece-id-cache.ts";

export interface PiecewiseEncoderOptions {
  /** Pieces kept at most (least recently used dropped first); default 4096. */
  maxEntries?: number;
  /**
   * Pieces longer than this are encoded every time, never kept (they would only push out what does
   * repeat); default 65536. An observation encoder keeps short pieces only: the template's turn
   * headers repeat every turn, a long tool result hardly ever.
   */
  maxPieceChars?: number;
}

export class PiecewiseEncoder {
  readonly #pieces: PieceIdCache;
  /** Matches each boundary token (a piece starts at each match); undefined: encode whole texts. */
  readonly #cut: RegExp | undefined;

  constructor(tokenizer: ModelTokenizer, options: PiecewiseEncoderOptions = {}) {
    this.#pieces = new PieceIdCache(
      (piece) => tokenizer.encode(piece),
      options.maxEntries ?? 4096,
      options.maxPieceChars ?? 64 * 1024,
    );
    const boundaries = tokenizer.encodeBoundaries;
    this.#cut =
      boundaries.length === 0
        ? undefined
        : new RegExp(boundaries.map((b) => b.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  }

  /** `tokenizer.encode(text)` (no special tokens added), from kept pieces where it can (a fresh array). */
  encode(text: string): number[] {
    const ids: number[] = [];
    if (this.#cut === undefined) {
      this.#pieces.append(ids, text);
      return ids;
    }
    // the pieces of text.split(/(?=boundary)/): cut where each boundary starts (a search for the
    // boundaries themselves, cheaper than a lookahead tried at every position)
    const cut = this.#cut;
    cut.lastIndex = 0;
    let from = 0;
    for (let m = cut.exec(text); m !== null; m = cut.exec(text)) {
      if (m.index > from) this.#pieces.append(ids, text.slice(from, m.index));
      from = m.index;
      if (m[0].length === 0) cut.lastIndex++;
    }
    if (from < text.length) this.#pieces.append(ids, text.slice(from));
    return ids;
  }
}
