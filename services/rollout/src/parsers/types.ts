// The contract between the rollout loop and a model family's tool-call codec: what a parsed model turn
// holds, what goes back to the model after tools ran, and the codec interface itself.

/** One tool call the model asked for, ready for the gateway (`name` is `server__tool`). */
export interface ToolCallRequest {
  /** The tool name exactly as the model wrote it. */
  name: string;
  /** Always a JSON object (double-encoded string arguments are decoded). */
  arguments: Record<string, unknown>;
  /** The call's text as it appeared in the turn (tags included), for logs. */
  raw: string;
  /** Position among the turn's call attempts (valid and malformed), 0-based: observations keep this order. */
  index: number;
}

/** Why a call attempt could not be turned into a {@link ToolCallRequest}. */
export type MalformedCode =
  /** The call's body is not JSON (nor JSON5). */
  | "INVALID_JSON"
  /** The body is JSON but not an object (an array, a number, …). */
  | "NOT_AN_OBJECT"
  /** No `name`, or a name that is not a non-empty string. */
  | "MISSING_NAME"
  /** No `arguments` (nor `parameters` where the format allows it). */
  | "MISSING_ARGUMENTS"
  /** `arguments` is neither an object nor a JSON string holding one. */
  | "ARGUMENTS_NOT_OBJECT"
  /** An opening tag (`<tool_call>`, `<answer>`) with no closing tag. */
  | "UNCLOSED_TAG"
  /** The turn holds no action the format knows (Search-R1: neither search nor answer). */
  | "UNKNOWN_ACTION";

export interface MalformedCall {
  /** The offending text as it appeared in the turn (may be the whole turn). */
  raw: string;
  code: MalformedCode;
  /** One line, under 300 characters, written for the model to learn from. */
  message: string;
  /** Position among the turn's call attempts, 0-based (see {@link ToolCallRequest.index}). */
  index: number;
}

/**
 * A model turn, parsed. The loop decides what wins: an `answer` ends the episode even when calls are
 * present (RL-Factory and Search-R1 both do so); otherwise calls run (in parallel) and malformed entries
 * are reported back to the model; a turn with none of the three is "nothing" (the loop's policy).
 */
export interface ParsedTurn {
  calls: ToolCallRequest[];
  /** The final answer, trimmed (the last one when the turn holds several). */
  answer?: string;
  malformed: MalformedCall[];
  /**
   * Where the turn's action ended (a character offset into the parsed text) when the format discards
   * what follows (Search-R1 cuts at the first `</search>`, else `</answer>`). Absent: the whole text counts.
   */
  end?: number;
}

/** What happened to one call attempt, in the order of the turn's attempts. */
export type ObservationInput =
  /** The tool answered; `isError` is MCP's `isError` (the text says what went wrong). */
  | { kind: "result"; name: string; text: string; isError: boolean }
  /** The call itself failed (gateway error code such as TIMEOUT, UNKNOWN_TOOL, INVALID_ARGUMENTS). */
  | { kind: "failure"; name: string; code: string; message: string }
  /** The model's call could not be parsed. */
  | { kind: "malformed"; malformed: MalformedCall };

/** One `role: "tool"` message; the chat template adds the family's wrapper (`<tool_response>`, ipython header). */
// A type alias, not an interface: it then fits `ChatMessage` (whose loose schema adds an index signature).
export type ToolMessage = {
  role: "tool";
  /** The tool's name; empty for a malformed call. */
  name: string;
  content: string;
};

/**
 * What goes back to the model after a turn's tools ran:
 * - `messages`: tool messages for the chat template (Hermes/Qwen3, Llama 3): the tokenizer renders them
 *   with the template and takes the suffix;
 * - `text`: text appended verbatim after the model's tokens, no template (Search-R1).
 */
export type Observation = { kind: "messages"; messages: ToolMessage[] } | { kind: "text"; text: string };

/**
 * One model family's codec: parse its turns, render what its tools said back. Pure functions, never throw.
 * Codecs are listed by name in `registry.ts` (which derives `ToolCallFormatName`).
 */
export interface ToolCallFormat {
  /** Its name in the registry (the contract suite checks they agree). */
  readonly name: string;
  parse(text: string): ParsedTurn;
  renderObservation(results: readonly ObservationInput[]): Observation;
  /** Stop strings for the sampler; the engine must keep them in the output (vLLM `include_stop_str_in_output`). */
  readonly stopSequences: readonly string[];
}
