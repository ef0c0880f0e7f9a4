// Lucene's EnglishAnalyzer (as used by pyserini/Anserini BM25 indexes), re-implemented:
// StandardTokenizer -> EnglishPossessiveFilter -> LowerCaseFilter -> StopFilter -> PorterStemFilter.
//
// Tokenization follows Unicode word segmentation (UAX #29) like Lucene's StandardTokenizer: runs of
// ASCII text use an exact UAX #29 rule set for ASCII (letters/digits joined by `.` `'` `:` between
// letters and `.` `,` `;` `'` between digits, `_` joining anything); chunks with other characters go
// through Intl.Segmenter (ICU). Known differences from Lucene are listed in README.md.
import { stemmer } from "stemmer";

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "for",
  "if",
  "in",
  "into",
  "is",
  "it",
  "no",
  "not",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "will",
  "with",
]);

/** StandardTokenizer's default maximum token length; longer tokens are chopped into pieces. */
const MAX_TOKEN_LENGTH = 255;

// Whitespace always separates words in UAX #29 (no rule joins across it), so text can be split on it.
const WHITESPACE = /[ \t\n\r\f\v]+/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD =
  /[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[.:'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*/g;
const HAS_ALNUM_ASCII = /[A-Za-z0-9]/;
const HAS_ALNUM = /[\p{L}\p{N}]/u;
const POSSESSIVE = /['\u2019\uff07][sS]$/;
// Lucene emits each Han ideograph and each Hiragana character as its own token (ICU groups them by dictionary).
const SINGLE_CHAR_TOKENS = /^[\p{Script=Han}\p{Script=Hiragana}]+$/u;
// Lucene keeps a run of Southeast Asian script as one token (ICU splits it by dictionary).
const SOUTHEAST_ASIAN = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]+$/u;
const EMOJI = /\p{Extended_Pictographic}/u;

const segmenter = new Intl.Segmenter("en", { granularity: "word" });

/** StandardTokenizer: the word tokens of `text`, in order. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const chunk of text.split(WHITESPACE)) {
    if (chunk === "") continue;
    if (ASCII_ONLY.test(chunk)) {
      for (const match of chunk.matchAll(ASCII_WORD)) {
        if (HAS_ALNUM_ASCII.test(match[0])) pushChopped(tokens, match[0]);
      }
    } else {
      segmentNonAscii(chunk, tokens);
    }
  }
  return tokens;
}

function segmentNonAscii(chunk: string, tokens: string[]): void {
  let seaRun = "";
  let seaEnd = -1;
  for (const { segment, index, isWordLike } of segmenter.segment(chunk)) {
    if (SOUTHEAST_ASIAN.test(segment)) {
      seaRun = seaEnd === index ? seaRun + segment : flushRun(tokens, seaRun) + segment;
      seaEnd = index + segment.length;
      continue;
    }
    seaRun = flushRun(tokens, seaRun);
    if (isWordLike && SINGLE_CHAR_TOKENS.test(segment)) {
      for (const ch of segment) tokens.push(ch);
    } else if ((isWordLike && HAS_ALNUM.test(segment)) || EMOJI.test(segment)) {
      pushChopped(tokens, segment);
    }
  }
  flushRun(tokens, seaRun);
}

function flushRun(tokens: string[], run: string): "" {
  if (run !== "") pushChopped(tokens, run);
  return "";
}

function pushChopped(tokens: string[], token: string): void {
  if (token.length <= MAX_TOKEN_LENGTH) {
    tokens.push(token);
    return;
  }
  for (let i = 0; i < token.length; i += MAX_TOKEN_LENGTH) tokens.push(token.slice(i, i + MAX_TOKEN_LENGTH));
}

/** LowerCaseFilter: Java's Character.toLowerCase per code point (no locale, no final-sigma rule). */
export function lowerCase(token: string): string {
  if (ASCII_ONLY.test(token)) return token.toLowerCase();
  let out = "";
  for (const ch of token) {
    const lower = ch.toLowerCase();
    // A one-to-many mapping (e.g. U+0130 -> "i\u0307") keeps only its first code point, as Java's simple case mapping does.
    out += lower.length === ch.length ? lower : String.fromCodePoint(lower.codePointAt(0) ?? 0);
  }
  return out;
}

// Stems repeat heavily (Zipf); a bounded cache avoids re-running the Porter rules.
const STEM_CACHE_LIMIT = 500_000;
const stemCache = new Map<string, string>();

/** PorterStemFilter: the original Porter (1980) algorithm, as in Lucene's PorterStemmer. */
export function porterStem(term: string): string {
  const cached = stemCache.get(term);
  if (cached !== undefined) return cached;
  const stem = term.length < 3 ? term : stemmer(term);
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(term, stem);
  return stem;
}

/** The indexed terms of `text`, in order, exactly as EnglishAnalyzer would emit them. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (let token of tokenize(text)) {
    if (POSSESSIVE.test(token)) token = token.slice(0, -2);
    const lower = lowerCase(token);
    if (lower === "" || ENGLISH_STOP_WORDS.has(lower)) continue;
    terms.push(porterStem(lower));
  }
  return terms;
}
