// Hermes / Qwen3 tool calls: `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks, any
// number per turn (run in parallel, results returned in order); `<answer>…</answer>` ends the episode;
// `<think>…</think>` is not parsed. Observations are `role: "tool"` messages: Qwen3's chat template wraps
// each in `<tool_response>` and groups a turn's results in one user turn.
import { scanJsonObjectEnd, skipWhitespace } from "./lenient-json.ts";
import { malformedCall } from "./malformed.ts";
import { toolMessages } from "./render-tool-result.ts";
import { parseCallBody } from "./tool-call-object.ts";
import type { MalformedCall, ParsedTurn, ToolCallFormat, ToolCallRequest } from "./types.ts";

const CALL_OPEN = "<tool_call>";
const CALL_CLOSE = "</tool_call>";
const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
const ANSWER_OPEN = "<answer>";
const ANSWER_CLOSE = "</answer>";

const SHAPE = {
  argumentKeys: ["arguments"],
  example: '{"name": "server__tool", "arguments": {...}}',
} as const;

export function parseHermes(text: string): ParsedTurn {
  const find = finders(text);
  const calls: ToolCallRequest[] = [];
  const malformed: MalformedCall[] = [];
  let answer: string | undefined;
  let attempts = 0;
  let pos = implicitThinkEnd(text);

  for (;;) {
    const next = nextTag(find, pos);
    if (next === undefined) break;
    const { tag, at } = next;
    if (tag === THINK_OPEN) {
      // an unclosed <think> (the turn was cut while thinking) hides the rest of the turn
      const close = find[THINK_CLOSE](at + THINK_OPEN.length);
      pos = close < 0 ? text.length : close + THINK_CLOSE.length;
    } else if (tag === ANSWER_OPEN) {
      const close = find[ANSWER_CLOSE](at + ANSWER_OPEN.length);
      if (close < 0) {
        const raw = text.slice(at);
        malformed.push(malformedCall("UNCLOSED_TAG", "<answer> has no closing </answer>", raw, attempts++));
        pos = at + ANSWER_OPEN.length; // keep looking: calls may follow a stray <answer>
      } else {
        answer = text.slice(at + ANSWER_OPEN.length, close).trim(); // the last answer wins
        pos = close + ANSWER_CLOSE.length;
      }
    } else {
      const block = readCallBlock(text, at, find);
      const index = attempts++;
      if (block.body === undefined) {
        const message = `tool call ${index + 1} has no closing ${CALL_CLOSE}`;
        malformed.push(malformedCall("UNCLOSED_TAG", message, block.raw, index));
      } else {
        const result = parseCallBody(block.body, block.raw, index, SHAPE);
        if ("code" in result) malformed.push(result);
        else calls.push(result);
      }
      pos = block.end;
    }
  }
  return answer === undefined ? { calls, malformed } : { calls, answer, malformed };
}

type Tag =
  | typeof THINK_OPEN
  | typeof THINK_CLOSE
  | typeof CALL_OPEN
  | typeof CALL_CLOSE
  | typeof ANSWER_OPEN
  | typeof ANSWER_CLOSE;
type Finders = Record<Tag, (from: number) => number>;

/**
 * `indexOf` per tag, remembering the last answer: scanning only moves forward, so a tag is searched for
 * again only once the scan has passed its last occurrence (keeps degenerate turns linear, not quadratic).
 */
function finders(text: string): Finders {
  const finder = (needle: string) => {
    let from = -1;
    let found = -1;
    return (pos: number): number => {
      if (from < 0 || pos < from || (found >= 0 && found < pos)) {
        from = pos;
        found = text.indexOf(needle, pos);
      }
      return found;
    };
  };
  return {
    [THINK_OPEN]: finder(THINK_OPEN),
    [THINK_CLOSE]: finder(THINK_CLOSE),
    [CALL_OPEN]: finder(CALL_OPEN),
    [CALL_CLOSE]: finder(CALL_CLOSE),
    [ANSWER_OPEN]: finder(ANSWER_OPEN),
    [ANSWER_CLOSE]: finder(ANSWER_CLOSE),
  };
}

/** Where parsing starts: after a `</think>` whose `<think>` was in the prompt (Qwen3 thinking templates). */
function implicitThinkEnd(text: string): number {
  const close = text.indexOf(THINK_CLOSE);
  if (close < 0) return 0;
  const open = text.indexOf(THINK_OPEN);
  return open >= 0 && open < close ? 0 : close + THINK_CLOSE.length;
}

function nextTag(find: Finders, pos: number): { tag: Tag; at: number } | undefined {
  let best: { tag: Tag; at: number } | undefined;
  for (const tag of [THINK_OPEN, CALL_OPEN, ANSWER_OPEN] as const) {
    const at = find[tag](pos);
    if (at >= 0 && (best === undefined || at < best.at)) best = { tag, at };
  }
  return best;
}

interface CallBlock {
  /** Text between the tags; undefined when the block is not closed. */
  body: string | undefined;
  raw: string;
  /** Where scanning resumes. */
  end: number;
}

/**
 * Delimits the block opening at `at`. A JSON object followed by `</tool_call>` is taken whole, so a
 * `</tool_call>` inside a string value does not end it; otherwise the first `</tool_call>` does, unless
 * another `<tool_call>` opens first (then this one is unclosed and the next is parsed on its own).
 */
function readCallBlock(text: string, at: number, find: Finders): CallBlock {
  const bodyStart = at + CALL_OPEN.length;
  const objStart = skipWhitespace(text, bodyStart);
  const objEnd = scanJsonObjectEnd(text, objStart);
  if (objEnd !== undefined) {
    const closeAt = skipWhitespace(text, objEnd);
    if (text.startsWith(CALL_CLOSE, closeAt)) {
      const end = closeAt + CALL_CLOSE.length;
      return { body: text.slice(bodyStart, closeAt), raw: text.slice(at, end), end };
    }
  }
  const close = find[CALL_CLOSE](bodyStart);
  const nextOpen = find[CALL_OPEN](bodyStart);
  if (close >= 0 && (nextOpen < 0 || close < nextOpen)) {
    const end = close + CALL_CLOSE.length;
    return { body: text.slice(bodyStart, close), raw: text.slice(at, end), end };
  }
  const end = nextOpen < 0 ? text.length : nextOpen;
  return { body: undefined, raw: text.slice(at, end), end };
}

export const hermesFormat: ToolCallFormat = Object.freeze<ToolCallFormat>({
  name: "hermes",
  parse: parseHermes,
  renderObservation: toolMessages,
  // Qwen3 ends a turn with <|im_end|>, an EOS token the engine stops on by itself
  stopSequences: Object.freeze([]),
});
