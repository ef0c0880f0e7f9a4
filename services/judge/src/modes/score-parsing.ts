// Reads a verdict from the judge model's output, only from the judge's own designated final structure:
//   - the answer IS one JSON object ({"score": x} / {"winner": …} / {"scores": [...]}), the whole answer
//     or a fenced block that is the whole answer — its fields are the verdict, whatever its strings quote;
//     An object with a repeated key (`{"score": 2, …, "score": 10}`) is no verdict: JSON.parse would keep
//     the last one, which a quoting answer can supply;
//   - else (never when the backend holds answers to a JSON schema), when the call drew a nonce, prose ending
//     with the verdict block `<verdict-NONCE><score>N</score></verdict-NONCE>`: the policy wrote its text
//     before the nonce existed, so a block with it is the judge's own; the verdict is the one token inside
//     it, and what the prose before it quotes does not count;
//   - else prose with exactly ONE verdict token:
//     `<score>x</score>` (or Prometheus' `[RESULT] x`), pairwise `[[A]]` / `[[B]]` / `[[C]]`; any other
//     score-like token anywhere in the answer (score-like-tokens.ts: a quoted `<score>10</score>`, a
//     `{"score": 10}`, `Score: 10`, `rating=10`, a second tag) makes it unreadable.
// An answer that echoes the policy's text can then never hand the policy's number in as the verdict:
// it is the judge's one verdict or a PARSE_ERROR (retried by the mode; `retries.parse`). The answer is
// normalised (look-alikes, invisible characters, entities) before the tokens are counted. Scores are
// clamped to the rubric's scale and normalised to [0, 1]. Unreadable is a JudgeError PARSE_ERROR — never 0.
import { z } from "zod";
import { JudgeError } from "../judge-types.ts";
import { normaliseLookalikes } from "./normalise-text.ts";
import type { Scale } from "./rubrics.ts";
import { hasScoreLikeToken } from "./score-like-tokens.ts";

export interface ParseOptions {
  /** The backend holds answers to the JSON schema: only a JSON answer is a verdict. */
  structured?: boolean;
  /** This call's nonce: a final `<verdict-NONCE>…</verdict-NONCE>` block holds the verdict. */
  boundary?: string;
}

export interface ParsedScore {
  /** In [0, 1]. */
  score: number;
  /** The number the judge wrote, before clamping and normalising. */
  raw: number;
  explanation?: string;
}

const numberLike = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(?:\.\d+)?$/)
    .transform(Number),
]);
const scoreObject = z.object({ score: numberLike, explanation: z.string().optional() });
const groupObject = z.object({
  scores: z.array(
    z.object({
      trajectory_id: z.union([z.string(), z.number()]).transform(String),
      score: numberLike,
      explanation: z.string().optional(),
    }),
  ),
});
const winnerObject = z.object({
  winner: z
    .string()
    .trim()
    .transform((s) => s.toUpperCase()),
  explanation: z.string().optional(),
});

function parseError(what: string, text: string): JudgeError {
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new JudgeError(
    "PARSE_ERROR",
    `could not read ${what} from the judge output: ${JSON.stringify(excerpt)}`,
  );
}

/**
 * The answer as one JSON value: the whole (trimmed) answer, or a ```json fence that is the whole answer.
 * JSON inside prose is not a verdict (it may be a quotation of the response).
 */
export function wholeAnswerJson(text: string): unknown {
  const trimmed = text.trim();
  const fence = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(trimmed);
  const body = fence ? (fence[1] ?? "") : trimmed;
  if (!body.startsWith("{") || !body.endsWith("}")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const repeated = repeatedKey(body);
  if (repeated !== undefined)
    throw parseError(`one JSON object (its key ${JSON.stringify(repeated)} appears twice)`, text);
  return value;
}

/**
 * The first key that appears twice in one object of `json` (valid JSON text), or undefined. One pass:
 * a stack of each open object's keys; a string is a key when it follows `{` or `,` inside an object.
 */
export function repeatedKey(json: string): string | undefined {
  const stack: ({ keys: Set<string>; expectKey: boolean } | null)[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    const top = stack.at(-1);
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      if (top?.expectKey) {
        const key = JSON.parse(json.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return key;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === "{") stack.push({ keys: new Set(), expectKey: true });
    else if (c === "[") stack.push(null);
    else if (c === "}" || c === "]") stack.pop();
    else if (c === "," && top) top.expectKey = true;
  }
  return undefined;
}

/**
 * The one verdict token of a prose answer: `pattern` must match exactly once in the normalised answer,
 * and nothing else score-like may be left once it is taken out.
 */
function soleVerdict(text: string, pattern: RegExp, what: string): RegExpMatchArray {
  const normalised = normaliseLookalikes(text);
  const matches = [...normalised.matchAll(pattern)];
  if (matches.length !== 1)
    throw parseError(
      matches.length === 0 ? what : `${what} (exactly one; the answer has ${matches.length})`,
      text,
    );
  const match = matches[0] as RegExpMatchArray;
  const index = match.index ?? 0;
  const rest = `${normalised.slice(0, index)} ${normalised.slice(index + match[0].length)}`;
  if (hasScoreLikeToken(rest))
    throw parseError(`${what} (the answer holds another score-like token besides its verdict)`, text);
  return match;
}

/**
 * The inside of the answer's verdict block `<verdict-NONCE>…</verdict-NONCE>` when the answer ends with
 * it (trailing blanks aside) and holds it once; else undefined (the strict prose rule applies).
 */
function finalVerdictBlock(text: string, boundary: string): string | undefined {
  const open = `<verdict-${boundary}>`;
  const close = `</verdict-${boundary}>`;
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith(close)) return undefined;
  const start = trimmed.lastIndexOf(open);
  if (start < 0 || trimmed.indexOf(open) !== start) return undefined;
  return trimmed.slice(start + open.length, trimmed.length - close.length);
}

/** Clamp `raw` to the scale and map it to [0, 1]. */
export function normalise(raw: number, scale: Scale): number {
  if (!(scale.max > scale.min)) throw new JudgeError("INTERNAL", `bad scale ${scale.min}..${scale.max}`);
  const clamped = Math.min(scale.max, Math.max(scale.min, raw));
  return (clamped - scale.min) / (scale.max - scale.min);
}

const NUM = String.raw`([-+]?\d{1,12}(?:\.\d{1,12})?)`;
/** `<score>7</score>`, `<score>7/10</score>`, `[RESULT] 4`. */
const FINAL_SCORE = new RegExp(
  String.raw`<score>\s{0,20}${NUM}\s{0,20}(?:\/\s{0,20}\d{1,12}(?:\.\d{1,12})?\s{0,20})?<\/score>|\[RESULT\]\s{0,20}${NUM}`,
  "gi",
);
/** `[[A]]`, `[[B]]`, `[[C]]` (a tie), `[[tie]]`. */
const FINAL_WINNER = /\[\[\s{0,20}(A|B|C|tie)\s{0,20}\]\]/gi;

/** Pointwise/reference: one score. */
export function parseScore(text: string, scale: Scale, options: ParseOptions = {}): ParsedScore {
  const json = wholeAnswerJson(text);
  if (json !== undefined) {
    const parsed = scoreObject.safeParse(json);
    if (!parsed.success || !Number.isFinite(parsed.data.score))
      throw parseError(`a {"score": …} object`, text);
    const { score, explanation } = parsed.data;
    return { score: normalise(score, scale), raw: score, ...(explanation ? { explanation } : {}) };
  }
  if (options.structured)
    throw parseError(`a {"score": …} JSON answer (the backend holds answers to its schema)`, text);
  const block = options.boundary === undefined ? undefined : finalVerdictBlock(text, options.boundary);
  const match = soleVerdict(block ?? text, FINAL_SCORE, "a final <score>N</score>");
  const value = Number(match[1] ?? match[2]);
  if (!Number.isFinite(value)) throw parseError("a final <score>N</score>", text);
  return { score: normalise(value, scale), raw: value };
}

export type PairwiseLabel = "A" | "B" | "tie";

/** Pairwise: which of the two shown responses won. */
export function parseWinner(
  text: string,
  options: ParseOptions = {},
): { winner: PairwiseLabel; explanation?: string } {
  const json = wholeAnswerJson(text);
  if (json !== undefined) {
    const parsed = winnerObject.safeParse(json);
    const w = parsed.success ? parsed.data.winner : undefined;
    const winner: PairwiseLabel | undefined =
      w === "A" ? "A" : w === "B" ? "B" : w === "TIE" || w === "C" ? "tie" : undefined;
    if (!parsed.success || !winner) throw parseError(`a {"winner": "A" | "B" | "tie"} object`, text);
    return { winner, ...(parsed.data.explanation ? { explanation: parsed.data.explanation } : {}) };
  }
  if (options.structured)
    throw parseError(`a {"winner": …} JSON answer (the backend holds answers to its schema)`, text);
  const match = soleVerdict(text, FINAL_WINNER, "a final [[A]], [[B]] or [[C]]");
  const label = (match[1] ?? "").toUpperCase();
  return { winner: label === "A" ? "A" : label === "B" ? "B" : "tie" };
}

export interface GroupScores {
  /** Judge id → parsed score. */
  byId: Map<string, ParsedScore>;
}

/**
 * Group (RULER): one score per trajectory id. Unreadable → PARSE_ERROR; a wrong number of scores,
 * an unknown or a repeated id → COUNT_MISMATCH (the caller retries, then reports it).
 */
export function parseGroupScores(text: string, ids: readonly string[], scale: Scale): GroupScores {
  const json = groupObject.safeParse(wholeAnswerJson(text));
  if (!json.success) throw parseError(`a {"scores": [...]} object`, text);
  const expected = new Set(ids);
  const byId = new Map<string, ParsedScore>();
  for (const entry of json.data.scores) {
    const id = entry.trajectory_id.trim();
    if (!expected.has(id))
      throw new JudgeError(
        "COUNT_MISMATCH",
        `the judge scored unknown trajectory id "${id}" (expected ${ids.join(", ")})`,
      );
    if (byId.has(id)) throw new JudgeError("COUNT_MISMATCH", `the judge scored trajectory "${id}" twice`);
    if (!Number.isFinite(entry.score)) throw parseError(`a score for trajectory "${id}"`, text);
    byId.set(id, {
      score: normalise(entry.score, scale),
      raw: entry.score,
      ...(entry.explanation ? { explanation: entry.explanation } : {}),
    });
  }
  if (byId.size !== ids.length)
    throw new JudgeError(
      "COUNT_MISMATCH",
      `the judge returned ${byId.size} scores for ${ids.length} trajectories`,
    );
  return { byId };
}
