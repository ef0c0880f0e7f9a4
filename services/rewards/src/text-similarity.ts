// text_similarity: how close the response is to the reference, in [0, 1].
//  - fuzzy_match: normalised Levenshtein similarity, 1 − distance / max(length), on the trimmed strings
//    (case-sensitive), distance from fastest-levenshtein;
//  - rouge_1 / rouge_2 / rouge_l: ROUGE F1 (Lin, 2004) from js-rouge (rouge_l is its summary-level
//    union-LCS form, which equals sentence-level ROUGE-L for single sentences);
//  - bleu: sentence BLEU-4 with exponential smoothing (see bleu.ts).
// ROUGE and BLEU share one word tokenizer: lower-cased runs of Unicode letters and digits, punctuation
// dropped — the rule of Google's rouge_score, extended beyond ASCII — so "Paris." matches "paris".
import { distance } from "fastest-levenshtein";
import { l as rougeL, n as rougeN } from "js-rouge";
import { bleu } from "./bleu.ts";
import type { SimilarityMetric } from "./grader-spec.ts";
import { RuleGraderError } from "./rule-grader-error.ts";

export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function fuzzySimilarity(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  const longest = Math.max(x.length, y.length);
  return longest === 0 ? 1 : 1 - distance(x, y) / longest;
}

export interface Similarity {
  similarity: number;
  /** Metric-specific extras for the score's detail (BLEU's precisions and brevity penalty). */
  extra?: Record<string, unknown>;
}

/** Longest text (either side) compared: Levenshtein and LCS are quadratic, and a reward must stay cheap. */
export const MAX_SIMILARITY_CHARS = 100_000;

export function textSimilarity(metric: SimilarityMetric, response: string, reference: string): Similarity {
  for (const [side, text] of [
    ["response", response],
    ["reference", reference],
  ] as const) {
    if (text.length > MAX_SIMILARITY_CHARS) {
      throw new RuleGraderError(
        "INVALID_GRADER",
        `text_similarity compares at most ${MAX_SIMILARITY_CHARS} characters; the ${side} has ${text.length}`,
      );
    }
  }
  try {
    return similarity(metric, response, reference);
  } catch (error) {
    // js-rouge bounds its own work (e.g. ROUGE-L over too many sentence pairs) with RangeError.
    if (error instanceof RangeError) {
      throw new RuleGraderError("INVALID_GRADER", `${metric}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function similarity(metric: SimilarityMetric, response: string, reference: string): Similarity {
  if (metric === "fuzzy_match") return { similarity: fuzzySimilarity(response, reference) };
  // js-rouge rejects text without words; no shared words is similarity 0 for every metric here.
  if (wordTokens(response).length === 0 || wordTokens(reference).length === 0) return { similarity: 0 };
  switch (metric) {
    case "rouge_1":
      return { similarity: rougeN(response, reference, { n: 1, tokenizer: wordTokens }) };
    case "rouge_2":
      return { similarity: rougeN(response, reference, { n: 2, tokenizer: wordTokens }) };
    case "rouge_l":
      return { similarity: rougeL(response, reference, { tokenizer: wordTokens }) };
    case "bleu": {
      const result = bleu(wordTokens(response), [wordTokens(reference)], { smoothing: "exp" });
      return {
        similarity: result.bleu,
        extra: {
          precisions: result.precisions.map((p) => (Number.isNaN(p) ? null : p)),
          brevity_penalty: result.brevityPenalty,
        },
      };
    }
  }
}
