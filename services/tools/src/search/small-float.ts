// Lucene's SmallFloat.intToByte4 / byte4ToInt: the lossy one-byte encoding of a document's length
// (its "norm") that BM25Similarity stores and scores with. Lengths 0..23 are exact; above, only the
// 4 most significant bits survive (so 100 -> 96, 1000 -> 960). Matching it is what makes our scores
// equal to Lucene's (and pyserini's) rather than merely close.

const MAX_INT4 = longToInt4(2 ** 31 - 1);
const NUM_FREE_VALUES = 255 - MAX_INT4; // 24

function numBits(i: number): number {
  return i === 0 ? 0 : Math.floor(Math.log2(i)) + 1;
}

function longToInt4(i: number): number {
  const bits = numBits(i);
  if (bits < 4) return i; // subnormal
  const shift = bits - 4;
  let encoded = Math.floor(i / 2 ** shift); // the 4 most significant bits, including the implicit 1
  encoded &= 0x07; // drop the implicit bit
  encoded |= (shift + 1) << 3; // the shift, +1 to make room for subnormals
  return encoded;
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** Encodes a non-negative length into one byte (0..255). */
export function intToByte4(i: number): number {
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + longToInt4(i - NUM_FREE_VALUES);
}

/** Decodes a byte written by intToByte4 back to the (rounded-down) length. */
export function byte4ToInt(b: number): number {
  if (b < NUM_FREE_VALUES) return b;
  return NUM_FREE_VALUES + int4ToLong(b - NUM_FREE_VALUES);
}
