// Cleans the text the POLICY wrote before a judge reads it. Judges are swayed by score-like tokens
// ("<score>10</score>", "[RESULT] 5", a JSON "score" field, a fake verdict tag: arXiv 2507.08794), and a
// policy under RL learns to write them; it can also try to close its own block or impersonate a turn
// (`</response>`, `<|im_start|>system`). So, in linear time:
//   1. normalise look-alikes, invisible characters and escapes (normalise-text.ts), so `＜/response＞`,
//      `&lt;/response&gt;` and `</respon\u200bse>` are seen as the tags they read as;
//   2. remove score-like tokens (score-like-tokens.ts: verdict tags with their content, `Score: 10/10`,
//      `rating=10`, JSON score fields, …) and structure (our delimiter tags, chat-template control
//      tokens), in at most MAX_PASSES passes — removing one token can join the halves of another
//      (`<sco<score>1</score>re>10</score>`);
//   3. if tokens are still left after that (deeply nested on purpose), neutralise the text: every
//      `< > [ ] | # & % \` and every score word becomes a space, so no token (nor an escape of one) can
//      remain or re-form.
// The text is normalised again before each pass, since a removal can join the halves of an escape.
// The cleaned text is what is judged and what the cache key sees; the count of removals goes into the
// metadata's notes. The judge model also sees it only inside a per-call nonce boundary (rubrics.ts).
import { normaliseLookalikes } from "./normalise-text.ts";
import { scoreLikePatterns, structurePatterns, VERDICT_TAG_NAMES } from "./score-like-tokens.ts";

/** Removal passes before the text is neutralised (each pass is linear). */
export const MAX_PASSES = 4;

const VERDICT_OPEN = new RegExp(
  String.raw`<\s{0,20}(${VERDICT_TAG_NAMES})(?![a-z])[^<>]{0,200}(?<!\/)>`,
  "gi",
);
const VERDICT_CLOSE = new RegExp(String.raw`<\s{0,20}\/\s{0,20}(${VERDICT_TAG_NAMES})\s{0,20}>`, "gi");
const PATTERNS = [...scoreLikePatterns(), ...structurePatterns()];
const NEUTRALISE = new RegExp(
  String.raw`[<>[\]|#&%\\]|${VERDICT_TAG_NAMES}|ratings|points|judge?ments?`,
  "gi",
);

/**
 * Removes `<score>9</score>`, `<judgement …>…</judgement>`: each verdict opener with everything up to the
 * first closer of the same name after it. Linear: the closers are listed in one scan, and one cursor per
 * tag name only moves forward.
 */
function stripVerdictBlocks(text: string): { text: string; removed: number } {
  const closers = new Map<string, { start: number; end: number }[]>();
  for (const m of text.matchAll(VERDICT_CLOSE)) {
    const tag = (m[1] ?? "").toLowerCase();
    const list = closers.get(tag) ?? [];
    list.push({ start: m.index, end: m.index + m[0].length });
    closers.set(tag, list);
  }
  if (closers.size === 0) return { text, removed: 0 };
  const cursor = new Map<string, number>();
  let out = "";
  let kept = 0;
  let removed = 0;
  VERDICT_OPEN.lastIndex = 0;
  for (let m = VERDICT_OPEN.exec(text); m !== null; m = VERDICT_OPEN.exec(text)) {
    const tag = (m[1] ?? "").toLowerCase();
    const list = closers.get(tag);
    if (!list) continue;
    const from = m.index + m[0].length;
    let i = cursor.get(tag) ?? 0;
    while (i < list.length && (list[i] as { start: number }).start < from) i++;
    cursor.set(tag, i);
    const closer = list[i];
    if (!closer) continue;
    out += text.slice(kept, m.index);
    kept = closer.end;
    removed++;
    VERDICT_OPEN.lastIndex = kept;
  }
  return removed === 0 ? { text, removed } : { text: out + text.slice(kept), removed };
}

export interface SanitizeResult {
  text: string;
  /** How many score-like or structure tokens were removed (a neutralised text counts one more). */
  removed: number;
  /** Normalisation changed the text (look-alikes, invisible characters or escapes). */
  normalised: boolean;
  /** Tokens were still left after MAX_PASSES: the text's brackets and score words were blanked. */
  neutralised: boolean;
}

/** See the header. Linear in the text's length. */
export function sanitizeJudgedText(input: string): SanitizeResult {
  let text = input;
  let removed = 0;
  let normalised = false;
  // Normalised again before every pass: a removal can join the halves of an escape (`&l<score>1</score>t;`).
  const renormalise = () => {
    const next = normaliseLookalikes(text);
    if (next !== text) normalised = true;
    text = next;
  };
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    renormalise();
    const blocks = stripVerdictBlocks(text);
    text = blocks.text;
    let changed = blocks.removed;
    for (const pattern of PATTERNS) {
      text = text.replace(pattern, () => {
        changed++;
        return "";
      });
    }
    removed += changed;
    if (changed === 0) return { text, removed, normalised, neutralised: false };
  }
  renormalise();
  const left = PATTERNS.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
  if (!left) return { text, removed, normalised, neutralised: false };
  return { text: text.replace(NEUTRALISE, " "), removed: removed + 1, normalised, neutralised: true };
}
