// Builds the inverted index of a corpus file in one streaming pass: each passage is analyzed once,
// its (term, tf) pairs appended to a forward list; then postings are laid out per term (sorted
// terms, ascending doc ids). Peak memory is about twice the final postings.

import { computeBlockMaxima } from "./block-maxima.ts";
import type { Bm25Params } from "./bm25.ts";
import { type CorpusScan, scanCorpus } from "./corpus-reader.ts";
import { analyze } from "./english-analyzer.ts";
import { GrowableArray } from "./growable-array.ts";
import type { InvertedIndexData } from "./inverted-index.ts";
import { intToByte4 } from "./small-float.ts";

export interface BuiltIndex {
  data: InvertedIndexData;
  corpus: CorpusScan;
}

/** Builds the index of a corpus file; its block maxima are computed for `params`. */
export async function buildIndex(corpusPath: string, params: Bm25Params): Promise<BuiltIndex> {
  const vocab = new Map<string, number>();
  const docFreq = new GrowableArray<Uint32Array>(Uint32Array);
  const forwardTerms = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
  const forwardTfs = new GrowableArray<Uint32Array>(Uint32Array, 1 << 16);
  const forwardStarts = new GrowableArray<Float64Array>(Float64Array);
  const norms = new GrowableArray<Uint8Array>(Uint8Array);
  const docOffsets = new GrowableArray<Float64Array>(Float64Array);
  let fieldDocCount = 0;
  let sumTotalTermFreq = 0;
  let maxTf = 0;

  const corpus = await scanCorpus(corpusPath, (passage, offset) => {
    docOffsets.push(offset);
    forwardStarts.push(forwardTerms.length);
    const terms = analyze(passage.contents);
    norms.push(intToByte4(terms.length));
    if (terms.length > 0) fieldDocCount++;
    sumTotalTermFreq += terms.length;
    const tfs = new Map<string, number>();
    for (const term of terms) tfs.set(term, (tfs.get(term) ?? 0) + 1);
    for (const [term, tf] of tfs) {
      let id = vocab.get(term);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(term, id);
        docFreq.push(0);
      }
      docFreq.add(id, 1);
      forwardTerms.push(id);
      forwardTfs.push(tf);
      if (tf > maxTf) maxTf = tf;
    }
  });
  const docCount = docOffsets.length;
  forwardStarts.push(forwardTerms.length);
  docOffsets.push(corpus.size);

  // Sorted dictionary: rank[termId] = position of the term in sort order.
  const sortedTerms = [...vocab.keys()].sort();
  const encoder = new TextEncoder();
  const encoded = sortedTerms.map((t) => encoder.encode(t));
  const termOffsets = new Uint32Array(sortedTerms.length + 1);
  for (let i = 0; i < encoded.length; i++)
    termOffsets[i + 1] = (termOffsets[i] as number) + (encoded[i]?.length ?? 0);
  const termBytes = new Uint8Array(termOffsets[sortedTerms.length] as number);
  for (let i = 0; i < encoded.length; i++) termBytes.set(encoded[i] as Uint8Array, termOffsets[i]);
  const rank = new Uint32Array(vocab.size);
  const dfs = docFreq.view();
  const postingOffsets = new Float64Array(sortedTerms.length + 1);
  for (let r = 0; r < sortedTerms.length; r++) {
    const id = vocab.get(sortedTerms[r] as string) as number;
    rank[id] = r;
    postingOffsets[r + 1] = (postingOffsets[r] as number) + (dfs[id] as number);
  }
  vocab.clear();

  const numPostings = forwardTerms.length;
  const postingDocs = new Uint32Array(numPostings);
  const postingTfs = maxTf > 0xffff ? new Uint32Array(numPostings) : new Uint16Array(numPostings);
  const cursor = postingOffsets.slice(0, sortedTerms.length);
  const fTerms = forwardTerms.view();
  const fTfs = forwardTfs.view();
  const starts = forwardStarts.view();
  for (let doc = 0; doc < docCount; doc++) {
    const end = starts[doc + 1] as number;
    for (let p = starts[doc] as number; p < end; p++) {
      const r = rank[fTerms[p] as number] as number;
      const at = cursor[r] as number;
      postingDocs[at] = doc;
      postingTfs[at] = fTfs[p] as number;
      cursor[r] = at + 1;
    }
  }

  const postings = {
    fieldDocCount,
    sumTotalTermFreq,
    postingOffsets,
    postingDocs,
    postingTfs,
    norms: norms.toArray(),
  };
  return {
    corpus,
    data: {
      ...postings,
      docCount,
      termBytes,
      termOffsets,
      docOffsets: docOffsets.toArray(),
      blockMaxima: computeBlockMaxima(postings, params),
      blockMaximaParams: { k1: params.k1, b: params.b },
    },
  };
}
