// Token ids of text pieces, kept for the pieces that repeat: a bounded map from a piece's exact text to
// its ids, least recently used dropped first; pieces longer than a limit are encoded every time and
// never kept (they would only push out what does repeat). Shared by the piece-wise encoder (chat text cut
// at boundary tokens) and the pre-token cache encoder (text cut into pre-tokens).
//
// Recency is kept by generations rather than per hit: pieces used now go to the young map (half the
// bound); when it is full it becomes the old map and the previous old map is dropped whole. A piece used
// since the last change of generation costs one lookup (an exact LRU deletes and re-inserts it on every
// hit, and a Map that many deletes pass through rehashes itself over and over); a piece found only in the
// old map moves to the young one. So what is dropped is what went unused for a whole generation: the
// least recently used, at the granularity of half the bound, and never more than `maxEntries` are kept.

export class PieceIdCache {
  readonly #encode: (piece: string) => readonly number[];
  readonly #generation: number;
  readonly #maxPieceChars: number;
  #young = new Map<string, readonly number[]>();
  #old = new Map<string, readonly number[]>();

  constructor(encode: (piece: string) => readonly number[], maxEntries: number, maxPieceChars: number) {
    this.#encode = encode;
    this.#generation = Math.max(1, Math.floor(maxEntries / 2));
    this.#maxPieceChars = maxPieceChars;
  }

  /** Pieces kept now (a piece in both generations counts once). */
  get size(): number {
    let both = 0;
    for (const piece of this.#young.keys()) if (this.#old.has(piece)) both++;
    return this.#young.size + this.#old.size - both;
  }

  /** Appends the ids of `piece` to `ids`. */
  append(ids: number[], piece: string): void {
    const pieceIds = this.#ids(piece);
    for (let i = 0; i < pieceIds.length; i++) ids.push(pieceIds[i]!);
  }

  /** The ids of `piece` (kept ones are shared: never modify them). */
  #ids(piece: string): readonly number[] {
    if (piece.length > this.#maxPieceChars) return this.#encode(piece);
    const young = this.#young.get(piece);
    if (young !== undefined) return young;
    const ids = this.#old.get(piece) ?? this.#encode(piece);
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(piece, ids);
    return ids;
  }
}
