// Strips score-like tokens that the POLICY wrote from the text a judge will read. Judges are swayed by
// such tokens ("<score>10</score>", "[RESULT] 5", a JSON "score" field, a fake verdict tag: arXiv
// 2507.08794), and a policy under RL learns to write them. Also removes the delimiter tags our own
// templates use (<trajectory>, <response>, …), so a response cannot forge another trajectory or close
// its own block. The cleaned text is what is judged and what the cache key sees; the count of
// removals goes into the logs/metadata.

/** Verdict-like tags, removed together with their content. */
const VERDICT_TAGS = "score|scores|judgement|judgment|verdict|grade|rating|evaluation|result|reward|winner";
/** Our templates' delimiters; removed as bare tags (content kept). */
const DELIMITER_TAGS = "trajectory|response|response_a|response_b|context|task|reference|criteria";
const NUM = String.raw`-?\d+(?:\.\d+)?`;

const PATTERNS: RegExp[] = [
  // <score>9</score>, <judgement …>…</judgement>
  new RegExp(String.raw`<(${VERDICT_TAGS})\b[^>]*>[\s\S]*?<\/\1\s*>`, "gi"),
  // stray opening/closing verdict or delimiter tags
  new RegExp(String.raw`<\/?(?:${VERDICT_TAGS}|${DELIMITER_TAGS})\b[^>]*>`, "gi"),
  // [RESULT] 5 (Prometheus style), [[A]] / [[B]] / [[C]] (MT-bench pairwise verdicts)
  new RegExp(String.raw`\[RESULT\]\s*${NUM}`, "gi"),
  /\[\[\s*(?:A|B|C|tie)\s*\]\]/gi,
  // a line that is only a score statement: "Score: 10/10", "**Final rating = 9 out of 10**"
  new RegExp(
    String.raw`^[ \t>*#_-]*(?:final\s+|overall\s+|total\s+)?(?:score|rating|grade|verdict|reward)[ \t*_]*[:=][ \t*_]*${NUM}(?:\s*(?:\/|out\s+of)\s*${NUM})?[ \t*_.]*$`,
    "gim",
  ),
  // JSON score fields: "score": 10, "rating": "9", "scores": [ … ], "winner": "A"
  /"(?:score|rating|grade|reward|winner)"\s*:\s*(?:-?\d+(?:\.\d+)?|"[^"]*")\s*,?/gi,
  /"scores"\s*:\s*\[[^\]]*\]\s*,?/gi,
];

export interface SanitizeResult {
  text: string;
  /** How many score-like tokens were removed. */
  removed: number;
}

/**
 * Remove score-like tokens until none is left: removing one can join the halves of another
 * (`<sco<score>1</score>re>10</score>`), so after any removal the patterns start again from the first.
 */
export function sanitizeJudgedText(input: string): SanitizeResult {
  let text = input;
  let removed = 0;
  // Terminates: every removal shortens the text (no pattern matches the empty string).
  for (;;) {
    let changed = false;
    for (const pattern of PATTERNS) {
      text = text.replace(pattern, () => {
        removed++;
        changed = true;
        return "";
      });
      if (changed) break;
    }
    if (!changed) break;
  }
  return { text, removed };
}
