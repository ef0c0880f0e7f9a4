// The files of a saved index directory (besides meta.json): raw little-endian typed arrays.
export const INDEX_FILES = {
  termBytes: "terms.bin",
  termOffsets: "term-offsets.u32",
  postingOffsets: "posting-offsets.f64",
  postingDocs: "posting-docs.u32",
  postingTfs: "posting-tfs",
  norms: "norms.u8",
  docOffsets: "doc-offsets.f64",
  blockMaxima: "block-maxima.f32",
} as const;
