// Reads a verdict from the judge model's output. Structured JSON first ({"score": x} / {"winner": …} /
// {"scores": [...]}, also inside a ```json fence or surrounding prose), else the LAST score tag in the
// text (`<score>x</score>`, `Score: x`, `[RESULT] x`; pairwise `[[A]]`). Scores are clamped to the
// rubric's scale and normalised to [0, 1]. Anything unreadable is a JudgeError PARSE_ERROR — never a 0.
import { z } from "zod";
import { JudgeError } from "../judge-types.ts";
import type { Scale } from "./rubrics.ts";

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

/** The JSON value in a judge's text: the whole text, a fenced block, or the outermost {...}. */
export function extractJson(text: string): unknown {
  const candidates = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence?.[1]) candidates.push(fence[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    if (!candidate.startsWith("{")) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

/** Clamp `raw` to the scale and map it to [0, 1]. */
export function normalise(raw: number, scale: Scale): number {
  if (!(scale.max > scale.min)) throw new JudgeError("INTERNAL", `bad scale ${scale.min}..${scale.max}`);
  const clamped = Math.min(scale.max, Math.max(scale.min, raw));
  return (clamped - scale.min) / (scale.max - scale.min);
}

const NUM = String.raw`(-?\d+(?:\.\d+)?)`;
const SCORE_TAGS = [
  new RegExp(String.raw`<score>\s*${NUM}\s*(?:\/\s*\d+(?:\.\d+)?\s*)?<\/score>`, "gi"),
  // also a truncated JSON field: {"explanation": "…", "score": 7
  new RegExp(String.raw`\bscore"?\s*[:=]\s*\**\s*${NUM}`, "gi"),
  new RegExp(String.raw`\[RESULT\]\s*${NUM}`, "gi"),
];

/** Pointwise/reference: one score. */
export function parseScore(text: string, scale: Scale): ParsedScore {
  const json = scoreObject.safeParse(extractJson(text));
  if (json.success && Number.isFinite(json.data.score)) {
    const { score, explanation } = json.data;
    return { score: normalise(score, scale), raw: score, ...(explanation ? { explanation } : {}) };
  }
  let best: { index: number; value: number } | undefined;
  for (const pattern of SCORE_TAGS) {
    for (const match of text.matchAll(pattern)) {
      const value = Number(match[1]);
      if (Number.isFinite(value) && (!best || match.index > best.index)) best = { index: match.index, value };
    }
  }
  if (!best) throw parseError("a score", text);
  return { score: normalise(best.value, scale), raw: best.value };
}

export type PairwiseLabel = "A" | "B" | "tie";

/** Pairwise: which of the two shown responses won. */
export function parseWinner(text: string): { winner: PairwiseLabel; explanation?: string } {
  const json = winnerObject.safeParse(extractJson(text));
  if (json.success) {
    const w = json.data.winner;
    const winner: PairwiseLabel | undefined =
      w === "A" ? "A" : w === "B" ? "B" : w === "TIE" || w === "C" ? "tie" : undefined;
    if (winner) return { winner, ...(json.data.explanation ? { explanation: json.data.explanation } : {}) };
  }
  const tags = [...text.matchAll(/\[\[\s*(A|B|C|tie)\s*\]\]|\bwinner\s*[:=]\s*\**\s*(A|B|tie)\b/gi)];
  const last = tags.at(-1);
  if (!last) throw parseError("a winner", text);
  const label = (last[1] ?? last[2] ?? "").toUpperCase();
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
  const json = groupObject.safeParse(extractJson(text));
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
