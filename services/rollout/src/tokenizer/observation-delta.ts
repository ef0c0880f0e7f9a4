import type { ChatMessage, ChatTool } from "@rlfactory/contracts";
import type { ModelTokenizer } from "./model-tokenizer.ts";
import { PiecewiseEncoder } from "./piecewise-encoder.ts";
import { defaultTruncationMarker, type TruncationMarker, truncateToTokens } from "./truncate-to-tokens.ts";

const BASE_REPLY = "BASE-ASSISTANT-REPLY";

/**
 * The fixed base conversation: a system and an assistant message, no user message. With Qwen3's
 * template this renders the assistant turn identically whatever is appended (tool results or a new
 * user message): with a user message in the base, the assistant turn would follow "the last query",
 * and as the last message it would gain an empty `<think>\n\n</think>\n\n` block that it loses once
 * something is appended, so the base would not be a prefix (see docs/trajectory.md).
 */
export const DEFAULT_BASE: readonly ChatMessage[] = [
  { role: "system", content: "BASE-SYSTEM" },
  { role: "assistant", content: BASE_REPLY },
];

export interface ObservationDeltaConfig {
  /** Tools as in the real prompt (templates may render them; they cancel out of the suffix). */
  tools?: readonly ChatTool[];
  /** As in the real prompt: Qwen3 adds `<think>\n\n</think>\n\n` after the next assistant header when false. */
  enableThinking?: boolean;
  /** A replacement base; it must end with an assistant message whose content appears nowhere after it. */
  base?: readonly ChatMessage[];
  marker?: TruncationMarker;
  /**
   * Where a delta's text is encoded. Default: a piece-wise encoder (one per delta function) keeping
   * pieces of up to OBSERVATION_PIECE_CHARS, so a turn encodes its tool results' piece and takes the
   * template's pieces from the cache; ids exactly those of the whole text encoded at once.
   */
  encoder?: Pick<PiecewiseEncoder, "encode">;
}

/**
 * Longest piece of a delta the default encoder keeps. The template's pieces (`\n`, `<|im_end|>\n`,
 * `<|im_start|>assistant\n`, with an empty think block 41 characters) come every turn; a tool result's
 * piece (`<|im_start|>user\n<tool_response>\n` + body + `\n</tool_response>`, 50 characters + body) is
 * kept only for a body of up to 14 characters (`[]`, `No results.`), the kind that repeats. Keeping
 * every piece cost more than it saved: ~76 against ~65 µs of CPU per one-result delta with unique
 * results (Qwen3, 2-core box), the kept ids of results that never come again being garbage to carry.
 */
export const OBSERVATION_PIECE_CHARS = 64;

export interface ObservationDeltaOptions {
  /**
   * True when the sampled turn ended with an end token (Qwen3: `<|im_end|>`): the delta then starts
   * with what the template puts after it (`\n`). False when generation stopped otherwise (a stop
   * string, a length cap): the delta then closes the turn itself (`<|im_end|>\n`).
   */
  lastAssistantEndedWithEos: boolean;
  /** Token budget of each tool message's body (the wrapper is never cut). */
  maxBodyTokens?: number;
}

export interface ObservationBody {
  originalTokens: number;
  tokens: number;
  truncated: boolean;
}

export interface ObservationDelta {
  /** Token ids to append to the response (loss mask 0). */
  ids: number[];
  /** The text they encode. */
  text: string;
  /** One entry per tool message, in order. */
  bodies: ObservationBody[];
}

export type ObservationDeltaFn = (
  messages: readonly ChatMessage[],
  options: ObservationDeltaOptions,
) => ObservationDelta;

/**
 * "Fixed-base" observation deltas: render the base conversation alone and with the new messages
 * appended (plus the generation prompt), take the rendered suffix, prefix it with the template text
 * that follows the last sampled token, and tokenize that text alone (piece-wise, the template's pieces
 * from a cache: see `encoder`). Template tokens the model never
 * samples (Qwen3's `\n` after `<|im_end|>`, the next `<|im_start|>assistant\n`, an empty think block)
 * are part of the delta. The model's own tokens are never re-tokenized.
 */
export function createObservationDelta(
  tokenizer: ModelTokenizer,
  config: ObservationDeltaConfig = {},
): ObservationDeltaFn {
  const base = config.base ?? DEFAULT_BASE;
  const last = base.at(-1);
  if (last?.role !== "assistant") throw new Error("the fixed base must end with an assistant message");
  const render = (messages: readonly ChatMessage[], addGenerationPrompt: boolean): string =>
    tokenizer.renderChat(messages, {
      addGenerationPrompt,
      ...(config.tools === undefined ? {} : { tools: config.tools }),
      ...(config.enableThinking === undefined ? {} : { enableThinking: config.enableThinking }),
    });
  const baseText = render(base, false);
  const replyAt = baseText.lastIndexOf(last.content);
  if (replyAt < 0) throw new Error("the base assistant content does not appear in the rendered base");
  // Template text after the assistant's content: Qwen3 `<|im_end|>\n`.
  const turnClose = baseText.slice(replyAt + last.content.length);
  const eosTexts = tokenizer.eosTokenIds.map((id) => tokenizer.decode([id]));
  const afterEos = (): string => {
    const eos = eosTexts.find((t) => t.length > 0 && turnClose.startsWith(t));
    if (eos === undefined) {
      throw new Error(
        `the template closes an assistant turn with ${JSON.stringify(turnClose)}, which does not start with an end token (${eosTexts.map((t) => JSON.stringify(t)).join(", ")})`,
      );
    }
    return turnClose.slice(eos.length);
  };
  const marker = config.marker ?? defaultTruncationMarker;
  const suffixOf = renderedSuffix(base, baseText, render);
  const encoder =
    config.encoder ?? new PiecewiseEncoder(tokenizer, { maxPieceChars: OBSERVATION_PIECE_CHARS });

  return (messages, options) => {
    if (messages.length === 0) throw new Error("observationDelta: no messages");
    // Without a budget nothing is cut, and the bodies' token counts are counted only when asked for
    // (the loop never asks: each would be one more encoding of every tool result).
    let bodies: ObservationBody[] | undefined;
    let fitted: readonly ChatMessage[] = messages;
    if (options.maxBodyTokens !== undefined) {
      const budget = options.maxBodyTokens;
      const counted: ObservationBody[] = [];
      fitted = messages.map((m) => {
        const t = truncateToTokens(tokenizer, m.content, budget, marker);
        counted.push({ originalTokens: t.originalTokens, tokens: t.tokens, truncated: t.truncated });
        return t.truncated ? { ...m, content: t.text } : m;
      });
      bodies = counted;
    }
    const text = (options.lastAssistantEndedWithEos ? afterEos() : turnClose) + suffixOf(fitted);
    return {
      ids: encoder.encode(text),
      text,
      get bodies(): ObservationBody[] {
        bodies ??= messages.map((m) => {
          const n = tokenizer.encode(m.content).length;
          return { originalTokens: n, tokens: n, truncated: false };
        });
        return bodies;
      },
    };
  };
}

/** Rendered base + messages + the generation prompt, less the rendered base. */
function renderSuffix(
  base: readonly ChatMessage[],
  baseText: string,
  render: (messages: readonly ChatMessage[], addGenerationPrompt: boolean) => string,
  messages: readonly ChatMessage[],
): string {
  const full = render([...base, ...messages], true);
  if (!full.startsWith(baseText)) {
    throw new Error(
      "chat template is not append-only for the fixed base: rendering base + observation does not start with the rendered base",
    );
  }
  return full.slice(baseText.length);
}

/**
 * Contents the template must render verbatim before a message shape's render is cached: whitespace
 * at either end (a template that trims), text that templates inspect (`<tool_response>`, `</think>`),
 * JSON, non-ASCII, the empty string.
 */
const PROBES = [
  "",
  " \n padded\t\n ",
  "<tool_response>\nx\n</tool_response>",
  "a</think>b",
  '{"k": [1, "v"]}',
  "日本🙂",
];

const sentinel = (i: number): string => `\u0002rlf-content-${i}\u0003`;

/**
 * The suffix renderer with the chat template's output cached per message shape (roles and every field
 * but `content`): the shape is rendered once with a sentinel per content, split at them, and a turn is
 * the cached pieces with its contents between them, no template run. Only when the template renders
 * contents verbatim: the probe contents above (padded, template-looking, JSON, empty) must each give
 * exactly the pieces around them; a template that trims or branches on them keeps a full render per
 * turn. Shapes are few (one per number of tool results, in practice), the cache keeps at most 64.
 */
function renderedSuffix(
  base: readonly ChatMessage[],
  baseText: string,
  render: (messages: readonly ChatMessage[], addGenerationPrompt: boolean) => string,
): (messages: readonly ChatMessage[]) => string {
  const shapes = new Map<string, readonly string[] | null>();
  const piecesOf = (messages: readonly ChatMessage[]): readonly string[] | null => {
    const probe = (content: (i: number) => string) =>
      renderSuffix(
        base,
        baseText,
        render,
        messages.map((m, i) => ({ ...m, content: content(i) })),
      );
    const marked = probe(sentinel);
    const pieces: string[] = [];
    let from = 0;
    for (let i = 0; i < messages.length; i++) {
      const at = marked.indexOf(sentinel(i), from);
      if (at < 0 || marked.indexOf(sentinel(i), at + 1) >= 0) return null;
      pieces.push(marked.slice(from, at));
      from = at + sentinel(i).length;
    }
    pieces.push(marked.slice(from));
    for (const p of PROBES) {
      if (
        probe(() => p) !==
        join(
          pieces,
          messages.map(() => p),
        )
      )
        return null;
    }
    return pieces;
  };
  return (messages) => {
    const key = shapeKey(messages);
    let pieces = shapes.get(key);
    if (pieces === undefined) {
      pieces = piecesOf(messages);
      if (shapes.size >= 64) shapes.clear();
      shapes.set(key, pieces);
    }
    return pieces === null
      ? renderSuffix(base, baseText, render, messages)
      : join(
          pieces,
          messages.map((m) => m.content),
        );
  };
}

function join(pieces: readonly string[], contents: readonly string[]): string {
  let text = pieces[0]!;
  for (let i = 0; i < contents.length; i++) text += contents[i]! + pieces[i + 1]!;
  return text;
}

function shapeKey(messages: readonly ChatMessage[]): string {
  let key = "";
  for (const m of messages) {
    let plain = true;
    for (const k in m) if (k !== "role" && k !== "content") plain = false;
    if (plain) key += `${m.role};`;
    else {
      const { content: _content, ...rest } = m;
      key += `${JSON.stringify(rest)};`;
    }
  }
  return key;
}
