// The QA metrics behind the `exact_match` and `f1` graders (grader-spec.ts): the rule rewards of
// Search-R1 / SQuAD / HotpotQA.
//
// Normalisation is SQuAD's `normalize_answer` (which Search-R1's `qa_em.py` uses unchanged):
// lowercase → drop ASCII punctuation (Python's `string.punctuation`) → replace the articles
// `\b(a|an|the)\b` by a space → split on whitespace and join with one space. Python details kept:
// `\b` is Unicode-aware (a letter such as `é` is a word character) and `str.split()` splits on every
// Unicode space, non-breaking spaces included (NQ's answers have them; they are mapped to spaces first).
// F1 is SQuAD v1.1's token F1 with HotpotQA's special case: when either normalised side is `yes`,
// `no` or `noanswer` and the two differ, F1 is 0. Both take the best score over the gold answers.

/** Python's `str.isspace()` characters: what `str.split()` splits on. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's str.split() splits on \x1c-\x1f too
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const NON_BREAKING_SPACES = /[\xa0\u2007\u202f]/gu;
/** Python's `string.punctuation`: ASCII only (curly quotes, dashes and the like stay). */
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;
/** `\b(a|an|the)\b` with Python's Unicode word characters (letters, numbers, `_`). */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
const YES_NO = new Set(["yes", "no", "noanswer"]);

/** SQuAD's `normalize_answer`, as Search-R1 uses it (plus NBSP → space). */
export function normalizeAnswer(text: string): string {
  const lowered = text.replace(NON_BREAKING_SPACES, " ").toLowerCase();
  const noPunct = lowered.replace(ASCII_PUNCTUATION, "");
  const noArticles = noPunct.replace(ARTICLES, " ");
  return tokens(noArticles).join(" ");
}

function tokens(text: string): string[] {
  return text.split(PY_WHITESPACE).filter((t) => t !== "");
}

/** 1 when the normalised prediction equals any normalised gold answer, else 0. */
export function exactMatch(prediction: string, golds: readonly string[]): number {
  const p = normalizeAnswer(prediction);
  return golds.some((g) => normalizeAnswer(g) === p) ? 1 : 0;
}

/** Token F1 against one gold answer (SQuAD v1.1, HotpotQA's yes/no/noanswer rule). */
export function f1Against(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(gold);
  if ((YES_NO.has(p) || YES_NO.has(g)) && p !== g) return 0;
  const pTokens = tokens(p);
  const gTokens = tokens(g);
  const counts = new Map<string, number>();
  for (const t of gTokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pTokens) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      same++;
      counts.set(t, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pTokens.length;
  const recall = same / gTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Best token F1 over the gold answers (0 when there are none). */
export function f1Score(prediction: string, golds: readonly string[]): number {
  return golds.reduce((best, g) => Math.max(best, f1Against(prediction, g)), 0);
}
