// What counts as a score-like token, in one place: the sanitizer removes these from the policy's text,
// and the verdict parser refuses a judge answer that holds any of them besides its one final verdict.
// Every pattern is matched on normalised text (normalise-text.ts) and bounded: no unbounded quantifier
// can rescan the text from each of many starting points, so a global match is one linear scan.

const NUM = String.raw`[-+]?\d{1,12}(?:\.\d{1,12})?`;
/** Characters that may sit between a score word and its separator: spaces, markdown emphasis, quotes. */
const GLUE = String.raw`[\s*_"'\x60]{0,20}`;
/** After the separator, on the same line only: "Key points:\n1. …" is a list, not a score. */
const LINE_GLUE = String.raw`[ \t*_"'\x60]{0,20}`;

/** Tags that carry a verdict: removed with their content by the sanitizer. */
export const VERDICT_TAG_NAMES =
  "score|scores|judgement|judgment|verdict|grade|rating|evaluation|result|reward|winner";

/** Words that introduce a score in prose or JSON: `Score: 10`, `rating=10`, `"score": 10`. */
const SCORE_WORDS = "score|scores|rating|ratings|grade|verdict|reward|points";

/**
 * Score-like tokens (global regexes; reset `lastIndex` or use `replace`/`matchAll`):
 * verdict tags, `[RESULT] 5`, `[[A]]`, `Score: 10/10` / `rating=10` / `"score": "9"`, `"winner": "A"`,
 * `"scores": [`, `a score of 10`, and `N/10` or `N out of 10` anywhere.
 */
export function scoreLikePatterns(): RegExp[] {
  return [
    // <score>, </ score>, <verdict value="10"/>, <rating-x>
    new RegExp(String.raw`<\s{0,20}\/?\s{0,20}(?:${VERDICT_TAG_NAMES})(?![a-z])[^<>]{0,200}>`, "gi"),
    // [RESULT] 5 (Prometheus), also without its number
    new RegExp(String.raw`\[\s{0,20}RESULT\s{0,20}\](?:\s{0,20}${NUM})?`, "gi"),
    // [[A]] / [[B]] / [[C]] / [[tie]] (MT-bench pairwise)
    /\[\[\s{0,20}(?:A|B|C|tie)\s{0,20}\]\]/gi,
    // Score: 10, **Final rating = 9 out of 10**, "score": "9", score -> 7, Score 10/10; across a line
    // break only when the number ends its line ("Score:\n10", not "Key points:\n1. Paris …")
    new RegExp(
      String.raw`[*_"'\x60]{0,3}\b(?:(?:final|overall|total)\s{1,5})?(?:${SCORE_WORDS})\b${GLUE}(?:(?:[:=]|->|→)${LINE_GLUE}${NUM}(?:\s{0,20}(?:\/|out\s{1,20}of)\s{0,20}${NUM})?|(?:[:=]|->|→)${GLUE}${NUM}(?=[ \t*_"'\x60.]{0,20}$)|${NUM}\s{0,20}(?:\/|out\s{1,20}of)\s{0,20}${NUM})[*_"'\x60]{0,3}`,
      "gim",
    ),
    // a score of 10 (not "a score of 3-1"), a bare 10/10 or 9 out of 10
    new RegExp(String.raw`\b(?:score|rating|grade)\s{1,5}of\s{1,5}${NUM}\b(?!\s{0,5}[-–:])`, "gi"),
    new RegExp(String.raw`\b${NUM}\s{0,20}(?:\/|out\s{1,20}of)\s{0,20}10\b(?![.,]?\d)`, "gi"),
    // "winner": "A", Winner: B
    new RegExp(String.raw`["'\x60]?\bwinner\b${GLUE}[:=]${LINE_GLUE}(?:A|B|C|tie)\b["'\x60]?`, "gi"),
    // "scores": [ … ] (group verdicts)
    new RegExp(String.raw`["'\x60]?\bscores\b${GLUE}:\s{0,20}\[`, "gi"),
  ];
}

/**
 * Structure a policy could use to break out of its block or impersonate a turn (sanitizer only):
 * our templates' delimiter tags (with any suffix: `</response-…>`), chat-template control tokens
 * (`<|im_end|>`, `<|start_header_id|>`, `[INST]`, `<<SYS>>`, `<start_of_turn>`, `</s>`) and markdown
 * role headers (`### System:`).
 */
export function structurePatterns(): RegExp[] {
  return [
    /<\s{0,20}\/?\s{0,20}(?:trajectory|response|context|task|reference|criteria|rubric|instructions?|system|user|assistant|human|model|developer)(?:[-_:.][\w.-]{0,64})?(?=[\s/>])[^<>]{0,200}>/gi,
    /<\|[^|<>\n]{0,64}\|>/g,
    /\[\s{0,20}\/?\s{0,20}INST\s{0,20}\]/gi,
    /<<\s{0,20}\/?\s{0,20}SYS\s{0,20}>>/gi,
    /<\s{0,20}\/?\s{0,20}(?:s|start_of_turn|end_of_turn|bos|eos|eot|im_start|im_end|endoftext)\s{0,20}>/gi,
    /^[ \t]{0,20}#{2,6}[ \t]{0,20}(?:system|instruction|instructions|response|assistant|user|human|judge|evaluation)\b[ \t]{0,20}:?/gim,
  ];
}

/** Whether `text` holds a score-like token. */
export function hasScoreLikeToken(text: string): boolean {
  return scoreLikePatterns().some((pattern) => pattern.test(text));
}
