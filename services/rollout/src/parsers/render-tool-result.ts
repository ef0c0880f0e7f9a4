// The text of one tool message (chat-template formats): what the tool said, or the coded reason the call
// produced nothing. Never a stack trace: gateway messages are short by contract, malformed ones are one line.
import type { Observation, ObservationInput } from "./types.ts";

export function renderToolResult(result: ObservationInput): string {
  switch (result.kind) {
    case "result":
      // an MCP isError result already says what went wrong, in the tool's words
      return result.text;
    case "failure":
      return `Error [${result.code}]: ${result.message}`;
    case "malformed":
      return `Error [${result.malformed.code}]: ${result.malformed.message}`;
  }
}

export function observationName(result: ObservationInput): string {
  return result.kind === "malformed" ? "" : result.name;
}

/** One `role: "tool"` message per result, in order (chat-template formats). */
export function toolMessages(results: readonly ObservationInput[]): Observation {
  return {
    kind: "messages",
    messages: results.map((r) => ({ role: "tool", name: observationName(r), content: renderToolResult(r) })),
  };
}
