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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const HAS_ALNUM = /[\p{L}\p{N}]/u;
const POSSESSIVE = /['\u2019\uff07][sS]$/;
// Lucene emits each Han ideograph and each Hiragana character as its own token (ICU groups them by dictionary).
const SINGLE_CHAR_TOKENS = /^[\p{Script=Han}\p{Script=Hiragana}]+$/u;
// Lucene keeps a run of Southeast Asian script as one token (ICU splits it by dictionary).
const SOUTHEAST_ASIAN = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]+$/u;
const EMOJI = /\p{Extended_Pictographic}/u;

const segmenter = new Intl.Segmenter("en", { granularity: "word" });

/** Receives the tokens of a text in order (scanTokens): each token is `text.slice(start, end)`. */
export interface TokenSink {
  token(text: string, start: number, end: number): void;
}

// ASCII character classes of the UAX #29 rules restricted to ASCII.
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
const UNDERSCORE = 3;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) ASCII_CLASS[c] = LETTER;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = DIGIT;
  else if (c === 95) ASCII_CLASS[c] = UNDERSCORE;
}
const DOT = 46;
const COLON = 58;
const APOSTROPHE = 39;
const COMMA = 44;
const SEMICOLON = 59;

/**
 * StandardTokenizer, streaming: hands the word tokens of `text` to `sink`, in order. Whitespace
 * (` \t\n\v\f\r`) always separates words in UAX #29, so the text is cut into whitespace-free chunks;
 * an ASCII chunk is scanned by char code, any other goes through Intl.Segmenter.
 */
export function scanTokens(text: string, sink: TokenSink): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) {
      i++;
      continue;
    }
    let end = i;
    let ascii = true;
    while (end < n) {
      c = text.charCodeAt(end);
      if (c === 32 || (c >= 9 && c <= 13)) break;
      if (c > 127) ascii = false;
      end++;
    }
    if (ascii) scanAsciiChunk(text, i, end, sink);
    else segmentNonAscii(text.slice(i, end), sink);
    i = end;
  }
}

// Letters, digits and `_` joined by `.` `:` `'` between letters and `.` `,` `;` `'` between digits
// (longest match, left to right); a word of underscores only is no token.
function scanAsciiChunk(text: string, start: number, end: number, sink: TokenSink): void {
  let i = start;
  while (i < end) {
    if (ASCII_CLASS[text.charCodeAt(i)] === OTHER) {
      i++;
      continue;
    }
    const tokenStart = i;
    let hasAlnum = false;
    for (;;) {
      let cls = ASCII_CLASS[text.charCodeAt(i)] as number;
      while (cls !== OTHER) {
        if (cls !== UNDERSCORE) hasAlnum = true;
        if (++i === end) break;
        cls = ASCII_CLASS[text.charCodeAt(i)] as number;
      }
      if (i + 1 >= end) break;
      const before = ASCII_CLASS[text.charCodeAt(i - 1)];
      const after = ASCII_CLASS[text.charCodeAt(i + 1)];
      const sep = text.charCodeAt(i);
      if (before === LETTER && after === LETTER && (sep === DOT || sep === COLON || sep === APOSTROPHE)) {
        i++;
        continue;
      }
      if (
        before === DIGIT &&
        after === DIGIT &&
        (sep === DOT || sep === COMMA || sep === SEMICOLON || sep === APOSTROPHE)
      ) {
        i++;
        continue;
      }
      break;
    }
    if (hasAlnum) emitChopped(sink, text, tokenStart, i);
  }
}

/** StandardTokenizer: the word tokens of `text`, in order. */
export function tokenize(text: string): string[] {
  const sink = new TokenList();
  scanTokens(text, sink);
  return sink.tokens;
}

class TokenList implements TokenSink {
  readonly tokens: string[] = [];
  token(text: string, start: number, end: number): void {
    this.tokens.push(slice(text, start, end));
  }
}

function slice(text: string, start: number, end: number): string {
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function segmentNonAscii(chunk: string, sink: TokenSink): void {
  let seaRun = "";
  let seaEnd = -1;
  for (const { segment, index, isWordLike } of segmenter.segment(chunk)) {
    if (SOUTHEAST_ASIAN.test(segment)) {
      seaRun = seaEnd === index ? seaRun + segment : flushRun(sink, seaRun) + segment;
      seaEnd = index + segment.length;
      continue;
    }
    seaRun = flushRun(sink, seaRun);
    if (isWordLike && SINGLE_CHAR_TOKENS.test(segment)) {
      for (const ch of segment) sink.token(ch, 0, ch.length);
    } else if ((isWordLike && HAS_ALNUM.test(segment)) || EMOJI.test(segment)) {
      emitChopped(sink, segment, 0, segment.length);
    }
  }
  flushRun(sink, seaRun);
}

function flushRun(sink: TokenSink, run: string): "" {
  if (run !== "") emitChopped(sink, run, 0, run.length);
  return "";
}

/** Hands text[start, end) to `sink`, chopped into pieces of at most MAX_TOKEN_LENGTH. */
function emitChopped(sink: TokenSink, text: string, start: number, end: number): void {
  for (let i = start; i < end; i += MAX_TOKEN_LENGTH)
    sink.token(text, i, Math.min(end, i + MAX_TOKEN_LENGTH));
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

/**
 * The indexed term of one token (EnglishPossessiveFilter, LowerCaseFilter, StopFilter,
 * PorterStemFilter), or undefined when the filters drop it.
 */
export function analyzeToken(token: string): string | undefined {
  const lower = lowerCase(POSSESSIVE.test(token) ? token.slice(0, -2) : token);
  if (lower === "" || ENGLISH_STOP_WORDS.has(lower)) return undefined;
  return porterStem(lower);
}

class TermList implements TokenSink {
  readonly terms: string[] = [];
  token(text: string, start: number, end: number): void {
    const term = analyzeToken(slice(text, start, end));
    if (term !== undefined) this.terms.push(term);
  }
}

/** The indexed terms of `text`, in order, exactly as EnglishAnalyzer would emit them. */
export function analyze(text: string): string[] {
  const sink = new TermList();
  scanTokens(text, sink);
  return sink.terms;
}
