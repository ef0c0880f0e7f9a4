// Search-R1's tag protocol (github PeterGriffinJin/Search-R1, search_r1/llm_agent/generation.py), kept
// byte-compatible for parity runs: the turn is cut at the first `</search>` (else `</answer>`), the action
// is the first `<(search|answer)>(.*?)</\1>`, a search becomes one call to the configured search tool, and
// observations are plain text appended after the model's tokens (no chat template).
import { z } from "zod";
import { malformedCall } from "./malformed.ts";
import { renderToolResult } from "./render-tool-result.ts";
import type { ObservationInput, ParsedTurn, ToolCallFormat } from "./types.ts";

/** Search-R1's observation for an invalid turn, byte for byte (typos and all). */
export const SEARCH_R1_INVALID_ACTION =
  "\nMy previous action is invalid. If I want to search, I should put the query between <search> and " +
  "</search>. If I want to give the final answer, I should put the answer between <answer> and </answer>. " +
  "Let me try again.\n";

export const searchR1OptionsSchema = z.object({
  /** The gateway tool a `<search>` calls (`server__tool`). */
  searchTool: z.string().min(1).default("search__search"),
  /** Passages per search (Search-R1: 3). */
  topk: z.int().min(1).max(100).default(3),
});
export type SearchR1Options = z.input<typeof searchR1OptionsSchema>;

const SEARCH_CLOSE = "</search>";
const ANSWER_CLOSE = "</answer>";
/** Search-R1's action pattern, as written there; `firstAction` finds the same match in linear time. */
export const SEARCH_R1_ACTION = /<(search|answer)>(.*?)<\/\1>/s;
const OPENER = /<(search|answer)>/g;

export function parseSearchR1(text: string, opts: z.output<typeof searchR1OptionsSchema>): ParsedTurn {
  const end = actionEnd(text);
  const turn = text.slice(0, end);
  const match = firstAction(turn);
  if (match === undefined) {
    const message = SEARCH_R1_INVALID_ACTION.trim();
    return { calls: [], malformed: [malformedCall("UNKNOWN_ACTION", message, turn, 0)], end };
  }
  const { raw, action, content } = match;
  if (action === "answer") return { calls: [], answer: content.trim(), malformed: [], end };
  // An empty query is still a search (as in Search-R1); the tool's schema answers it.
  const call = {
    name: opts.searchTool,
    arguments: { query: content.trim(), topk: opts.topk },
    raw,
    index: 0,
  };
  return { calls: [call], malformed: [], end };
}

interface Action {
  raw: string;
  action: "search" | "answer";
  content: string;
}

/**
 * The first match of {@link SEARCH_R1_ACTION}: the leftmost opener with a matching close after it, up to
 * the first such close. When an opener has no close after it, no later opener of its kind has one either,
 * so each close is searched for at most once: linear time where the backtracking regex is quadratic (a
 * turn full of unclosed openers).
 */
export function firstAction(text: string): Action | undefined {
  const mayClose = { search: true, answer: true };
  for (const opener of text.matchAll(OPENER)) {
    const action = opener[1] === "search" ? "search" : "answer";
    if (!mayClose[action]) continue;
    const from = opener.index + opener[0].length;
    const close = text.indexOf(`</${action}>`, from);
    if (close >= 0) {
      const end = close + action.length + 3;
      return { raw: text.slice(opener.index, end), action, content: text.slice(from, close) };
    }
    mayClose[action] = false;
  }
  return undefined;
}

/** Search-R1's `resp.split('</search>')[0] + '</search>'`, else the same with `</answer>`, else the whole text. */
function actionEnd(text: string): number {
  const search = text.indexOf(SEARCH_CLOSE);
  if (search >= 0) return search + SEARCH_CLOSE.length;
  const answer = text.indexOf(ANSWER_CLOSE);
  return answer >= 0 ? answer + ANSWER_CLOSE.length : text.length;
}

/** `\n\n<information>{docs.strip()}</information>\n\n`; a malformed turn gets the invalid-action text instead. */
export function renderSearchR1Observation(result: ObservationInput): string {
  if (result.kind === "malformed") return SEARCH_R1_INVALID_ACTION;
  return `\n\n<information>${renderToolResult(result).trim()}</information>\n\n`;
}

export function searchR1Format(options: SearchR1Options = {}): ToolCallFormat {
  const opts = searchR1OptionsSchema.parse(options);
  return Object.freeze<ToolCallFormat>({
    name: "search-r1",
    parse: (text: string) => parseSearchR1(text, opts),
    renderObservation: (results: readonly ObservationInput[]) => ({
      kind: "text",
      text: results.map(renderSearchR1Observation).join(""),
    }),
    stopSequences: Object.freeze([SEARCH_CLOSE, ANSWER_CLOSE]),
  });
}
