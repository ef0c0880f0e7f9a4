// Pieces the scripted policies write: think blocks, Hermes tool calls, Search-R1 tags, and the choice of
// an answer span among retrieved passages (seeded, so sampling groups disagree the way real ones do).
import { readPassages } from "../conversation.ts";
import type { PolicyContext } from "./policy.ts";

/** `<think>\n…\n</think>\n\n` before `body` when `--think` is on. */
export function withThink(ctx: PolicyContext, plan: string, body: string): string {
  if (!ctx.options.think) return body;
  return `<think>\nTurn ${ctx.conversation.turn}. ${plan}\n</think>\n\n${body}`;
}

/** One Hermes call, JSON written the way Qwen3 writes it (Python `json.dumps` separators). */
export function hermesCall(name: string, args: Record<string, unknown>): string {
  const body = Object.entries(args)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(", ");
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {${body}}}\n</tool_call>`;
}

export function answerTag(span: string): string {
  return `<answer>${span}</answer>`;
}

export function searchTag(query: string): string {
  return `<search>${query}</search>`;
}

/** The retry query after a failed search: the first half of the question's words (at least one). */
export function shorterQuery(question: string): string {
  const words = question.split(/\s+/).filter(Boolean);
  return words.slice(0, Math.max(1, Math.ceil(words.length / 2))).join(" ");
}

/**
 * The answer span from the observations' passages: the top passage's title when decoding greedily; when
 * sampling, another passage's title with probability min(0.6, 0.3 × temperature). Undefined when the
 * observations hold no passage (a tool error, no hits).
 */
export function chooseSpan(ctx: PolicyContext, observations: readonly string[]): string | undefined {
  const passages = observations.flatMap(readPassages);
  const top = passages[0];
  if (top === undefined) return undefined;
  if (ctx.temperature === 0 || passages.length === 1) return top.title;
  const explore = ctx.random() < Math.min(0.6, 0.3 * ctx.temperature);
  const pick = ctx.random();
  if (!explore) return top.title;
  return passages[1 + Math.floor(pick * (passages.length - 1))]!.title;
}
