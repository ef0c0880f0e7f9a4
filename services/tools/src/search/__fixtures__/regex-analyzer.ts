// The regex-based ASCII tokenizer and the token-at-a-time analysis that english-analyzer.ts used before
// its char-code fast path and build-time token cache: the reference the fast paths are tested against.
import { ENGLISH_STOP_WORDS, tokenize as fastTokenize, lowerCase, porterStem } from "../english-analyzer.ts";

const WHITESPACE = /[ \t\n\r\f\v]+/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD =
  /[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[.:'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*/g;
const HAS_ALNUM_ASCII = /[A-Za-z0-9]/;
const POSSESSIVE = /['\u2019\uff07][sS]$/;
const MAX_TOKEN_LENGTH = 255;

function pushChopped(tokens: string[], token: string): void {
  for (let i = 0; i < token.length; i += MAX_TOKEN_LENGTH) tokens.push(token.slice(i, i + MAX_TOKEN_LENGTH));
}

/** StandardTokenizer with the regex ASCII rules; non-ASCII chunks go through the product tokenizer. */
export function regexTokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const chunk of text.split(WHITESPACE)) {
    if (chunk === "") continue;
    if (ASCII_ONLY.test(chunk)) {
      for (const match of chunk.matchAll(ASCII_WORD)) {
        if (HAS_ALNUM_ASCII.test(match[0])) pushChopped(tokens, match[0]);
      }
    } else {
      tokens.push(...fastTokenize(chunk));
    }
  }
  return tokens;
}

/** EnglishAnalyzer one token at a time, without any token cache. */
export function regexAnalyze(text: string): string[] {
  const terms: string[] = [];
  for (let token of regexTokenize(text)) {
    if (POSSESSIVE.test(token)) token = token.slice(0, -2);
    const lower = lowerCase(token);
    if (lower === "" || ENGLISH_STOP_WORDS.has(lower)) continue;
    terms.push(porterStem(lower));
  }
  return terms;
}
