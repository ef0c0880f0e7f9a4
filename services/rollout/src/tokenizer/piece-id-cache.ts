// Token ids of text pieces, kept for the pieces that repeat: a bounded map from a piece's exact text to
// its ids, least recently used dropped first; pieces longer than a limit are encoded every time and
// never kept (they would only push out what does repeat). Shared by the piece-wise encoder (chat text cut
// at boundary tokens) and the pre-token cache encoder (text cut into pre-tokens).

export class PieceIdCache {
  readonly #encode: (piece: string) => readonly number[];
  readonly #maxEntries: number;
  readonly #maxPieceChars: number;
  readonly #entries = new Map<string, readonly number[]>();

  constructor(encode: (piece: string) => readonly number[], maxEntries: number, maxPieceChars: number) {
    this.#encode = encode;
    this.#maxEntries = maxEntries;
    this.#maxPieceChars = maxPieceChars;
  }

  /** Pieces kept now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Appends the ids of `piece` to `ids`. */
  append(ids: number[], piece: string): void {
    const pieceIds = this.#ids(piece);
    for (let i = 0; i < pieceIds.length; i++) ids.push(pieceIds[i]!);
  }

  /** The ids of `piece` (kept ones are shared: never modify them). */
  #ids(piece: string): readonly number[] {
    if (piece.length > this.#maxPieceChars) return this.#encode(piece);
    const hit = this.#entries.get(piece);
    if (hit !== undefined) {
      this.#entries.delete(piece);
      this.#entries.set(piece, hit);
      return hit;
    }
    const ids = this.#encode(piece);
    this.#entries.set(piece, ids);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return ids;
  }
}
