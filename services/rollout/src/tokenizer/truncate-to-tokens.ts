import type { ModelTokenizer } from "./model-tokenizer.ts";

/** The visible marker put where a tool body was cut. */
export type TruncationMarker = (omittedTokens: number) => string;

export const defaultTruncationMarker: TruncationMarker = (omitted) =>
  `\n[... truncated: ${omitted} tokens omitted]`;

export interface TruncatedText {
  text: string;
  /** Tokens of the original text (tokenized on its own). */
  originalTokens: number;
  /** Tokens of the returned text, marker included (tokenized on its own); ≤ maxTokens. */
  tokens: number;
  truncated: boolean;
}

/**
 * Keeps the head of `text` within `maxTokens` tokens, marker included, cutting on a token boundary
 * and never inside a UTF-8 character. Counts are of the text tokenized on its own; inside a template
 * wrapper the edges may merge with the wrapper's whitespace by a token.
 */
export function truncateToTokens(
  tokenizer: ModelTokenizer,
  text: string,
  maxTokens: number,
  marker: TruncationMarker = defaultTruncationMarker,
): TruncatedText {
  if (!Number.isInteger(maxTokens) || maxTokens < 0) {
    throw new RangeError(`maxTokens must be a non-negative integer, got ${maxTokens}`);
  }
  const ids = tokenizer.encode(text);
  if (ids.length <= maxTokens) {
    return { text, originalTokens: ids.length, tokens: ids.length, truncated: false };
  }
  let keep = maxTokens;
  for (;;) {
    let head = tokenizer.decode(ids.slice(0, keep));
    // A cut inside a multi-byte character decodes to U+FFFD: drop the partial character.
    while (keep > 0 && head.endsWith("\uFFFD") && !text.startsWith(head)) {
      keep -= 1;
      head = tokenizer.decode(ids.slice(0, keep));
    }
    const candidate = head + marker(ids.length - keep);
    const tokens = tokenizer.encode(candidate).length;
    if (tokens <= maxTokens) {
      return { text: candidate, originalTokens: ids.length, tokens, truncated: true };
    }
    if (keep === 0) {
      throw new RangeError(
        `maxTokens ${maxTokens} is smaller than the truncation marker (${tokens} tokens): raise the budget`,
      );
    }
    keep = Math.max(0, keep - Math.max(1, tokens - maxTokens));
  }
}
