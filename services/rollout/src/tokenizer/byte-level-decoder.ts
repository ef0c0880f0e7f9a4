// Decoding ids for a tokenizer whose decoder is `ByteLevel` (Qwen, Llama 3, GPT-2 style BPE), giving the
// text `@huggingface/tokenizers`' own `decode` gives, at a fraction of its cost. The library looks each
// token up in the list of added tokens and of special tokens (a linear search per token, ~30 lists'
// entries for Qwen3) and maps every character of the joined tokens through an object; here each id's
// bytes (or, for an added token, its text) are worked out once and kept.
//
// What the library does, and so what this does (tokenizers 0.2.0, `Tokenizer.decode` with
// `clean_up_tokenization_spaces: false` and the `ByteLevel` decoder):
//   - each id becomes its vocabulary entry; with `skip_special_tokens`, entries whose text is a special
//     token (an added token flagged special, or one of the config's `additional_special_tokens`) go;
//   - an entry whose text is an added token's is kept as that text; each run of other entries between
//     them is joined, each character mapped back to its byte (GPT-2's byte↔character table; a character
//     outside it becomes byte 0), and the run's bytes decoded as UTF-8 on their own (invalid sequences
//     become U+FFFD, a BOM is kept).
// Ids outside the vocabulary (or of a BPE model with an end-of-word suffix) are not handled here: the
// caller falls back to the library then.

/** GPT-2's byte → character table, reversed: a byte-level character's code point → its byte. */
function byteOfChar(): Map<number, number> {
  const shown: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) shown.push(b);
  for (let b = 0xa1; b <= 0xac; b++) shown.push(b);
  for (let b = 0xae; b <= 0xff; b++) shown.push(b);
  // a printable byte is its own character; the others take 256, 257, ... in byte order
  const byChar = new Map<number, number>(shown.map((b) => [b, b]));
  let next = 256;
  for (let b = 0; b < 256; b++) if (!shown.includes(b)) byChar.set(next++, b);
  return byChar;
}

export interface ByteLevelVocabulary {
  /** One more than the largest id. */
  size: number;
  /** The vocabulary entry of an id (added tokens included), undefined when there is none. */
  tokenText(id: number): string | undefined;
  /** Every added token's text. */
  addedTokens: ReadonlySet<string>;
  /** The texts `skip_special_tokens` drops. */
  specialTokens: ReadonlySet<string>;
}

/** One id, worked out: an added token's text, or the bytes of a byte-level entry. */
type Piece = { added: string; special: boolean } | { bytes: Uint8Array; special: boolean };

export class ByteLevelDecoder {
  readonly #vocabulary: ByteLevelVocabulary;
  readonly #pieces: (Piece | undefined)[];
  readonly #byteOf = byteOfChar();
  readonly #utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  #buffer = new Uint8Array(4096);

  constructor(vocabulary: ByteLevelVocabulary) {
    this.#vocabulary = vocabulary;
    this.#pieces = new Array<Piece | undefined>(vocabulary.size).fill(undefined);
  }

  /** The ids' text, or undefined when an id is not in the vocabulary (the library's to answer). */
  decode(ids: readonly number[], skipSpecialTokens: boolean): string | undefined {
    let text = "";
    let length = 0;
    for (let i = 0; i < ids.length; i++) {
      const piece = this.#piece(ids[i]!);
      if (piece === undefined) return undefined;
      if (skipSpecialTokens && piece.special) continue;
      if ("added" in piece) {
        if (length > 0) text += this.#utf8.decode(this.#buffer.subarray(0, length));
        length = 0;
        text += piece.added;
        continue;
      }
      const bytes = piece.bytes;
      if (length + bytes.length > this.#buffer.length) {
        const grown = new Uint8Array(Math.max(this.#buffer.length * 2, length + bytes.length));
        grown.set(this.#buffer.subarray(0, length));
        this.#buffer = grown;
      }
      this.#buffer.set(bytes, length);
      length += bytes.length;
    }
    if (length > 0) text += this.#utf8.decode(this.#buffer.subarray(0, length));
    return text;
  }

  #piece(id: number): Piece | undefined {
    const known = this.#pieces[id];
    if (known !== undefined) return known;
    if (!Number.isInteger(id) || id < 0 || id >= this.#pieces.length) return undefined;
    const token = this.#vocabulary.tokenText(id);
    if (token === undefined) return undefined;
    const special = this.#vocabulary.specialTokens.has(token);
    let piece: Piece;
    if (this.#vocabulary.addedTokens.has(token)) piece = { added: token, special };
    else {
      const bytes: number[] = [];
      for (const c of token) bytes.push(this.#byteOf.get(c.codePointAt(0)!) ?? 0);
      piece = { bytes: Uint8Array.from(bytes), special };
    }
    this.#pieces[id] = piece;
    return piece;
  }
}
