// Reading a decoded prompt the way the scripted policies need it: the question, which turn the model is
// on, and what the tools said since its last turn. Understands Qwen3's chat layout
// (`<|im_start|>role\n…<|im_end|>`), Hermes tool results (`<tool_response>…</tool_response>` inside a user
// turn) and Search-R1 observations (`<information>…</information>` appended inside the open assistant
// turn). A prompt without chat markers is one user message.
import { SEARCH_R1_INVALID_ACTION } from "@rlfactory/rollout";

export interface ChatTurn {
  role: string;
  content: string;
  /** False for the last message when the prompt ends inside it (the assistant turn being generated). */
  closed: boolean;
}

export interface Conversation {
  /** The first user message after its last `Question:` marker, else the whole first user message (trimmed). */
  question: string;
  /** 1-based number of the model turn to write: prior assistant turns (and Search-R1 actions) + 1. */
  turn: number;
  /** What the tools said after the model's previous turn, in order (empty on turn 1). */
  observations: string[];
  messages: ChatTurn[];
}

const MESSAGE = /<\|im_start\|>([^\n]*)\n([\s\S]*?)(<\|im_end\|>|$)/g;
const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;
const INFORMATION = /<information>([\s\S]*?)<\/information>/g;
const QUESTION_MARKER = "Question:";

export function readConversation(prompt: string): Conversation {
  const messages = splitMessages(prompt);
  const firstUser = messages.find((m) => m.role === "user")?.content ?? "";
  const marker = firstUser.lastIndexOf(QUESTION_MARKER);
  const question = (marker >= 0 ? firstUser.slice(marker + QUESTION_MARKER.length) : firstUser).trim();

  let turn = 1;
  let observations: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      // Search-R1: observations are appended inside the assistant turn, one per model action.
      const actions = searchR1Observations(m.content);
      turn += actions.length + (m.closed ? 1 : 0);
      if (actions.length > 0) observations = [actions[actions.length - 1]!];
      else if (m.closed) observations = [];
    } else if (m.role === "user" || m.role === "tool") {
      const results = [...m.content.matchAll(TOOL_RESPONSE)].map((r) => r[1]!);
      if (results.length > 0) observations = [...observations, ...results];
    }
  }
  return { question, turn, observations, messages };
}

function splitMessages(prompt: string): ChatTurn[] {
  const out: ChatTurn[] = [];
  for (const m of prompt.matchAll(MESSAGE)) {
    out.push({ role: m[1]!.trim(), content: m[2]!, closed: m[3] !== "" });
  }
  return out.length > 0 ? out : [{ role: "user", content: prompt, closed: true }];
}

/** The observations inside one assistant turn (Search-R1 layout), invalid-action notices included. */
function searchR1Observations(content: string): string[] {
  const found: { at: number; text: string }[] = [];
  for (const m of content.matchAll(INFORMATION)) found.push({ at: m.index, text: m[1]!.trim() });
  let from = 0;
  for (;;) {
    const at = content.indexOf(SEARCH_R1_INVALID_ACTION, from);
    if (at < 0) break;
    found.push({ at, text: SEARCH_R1_INVALID_ACTION.trim() });
    from = at + SEARCH_R1_INVALID_ACTION.length;
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.text);
}

/** One retrieved passage as the search tool renders it (`Doc i(Title: "T") text`). */
export interface RenderedPassage {
  title: string;
  text: string;
}

/** A quoted title may hold `(…) ` itself, so it ends at the first `") `; an unquoted one at the first `) `. */
const DOC = /Doc \d+\(Title: (?:"([^\n]*?)"|([^\n]*?))\) ([^\n]*)/g;

/** The passages in a search observation, in rank order; empty when it holds none (an error, no hits). */
export function readPassages(observation: string): RenderedPassage[] {
  return [...observation.matchAll(DOC)].map((m) => ({
    title: (m[1] ?? m[2] ?? "").trim(),
    text: m[3]!.trim(),
  }));
}
