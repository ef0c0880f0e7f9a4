// observe: what the turn's call attempts came to, recorded (`tool_calls`, in the order given) and
// shown to the model as ONE observation in the order of the turn's attempts: tool bodies cut to
// `max_tool_response_tokens` BEFORE the format's wrapper is added (template tool messages or
// Search-R1's text), tokenized as a delta after the sampled turn and appended with loss mask 0.
// An observation kind is one member of `Observed` and one case of `record` and `shown` below.
import { MALFORMED_CODE_PREFIX, TOOL_ERROR_CODE, type ToolCallRecord } from "@rlfactory/contracts";
import type { ToolOutcome } from "../gateway-tools.ts";
import type { MalformedCall, ObservationInput, ToolCallRequest } from "../parsers/types.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import { truncateToTokens } from "../tokenizer/truncate-to-tokens.ts";
import type { Sample } from "./generate-phase.ts";
import { type LoopStep, NEXT } from "./loop-outcome.ts";
import type { TrajectoryState } from "./trajectory-state.ts";

/** One call attempt of the turn and what came of it; `index`: its position among the turn's attempts. */
export type Observed =
  /** A call that reached a tool (or was refused before it: TOOL_NOT_OFFERED). */
  | { kind: "tool"; index: number; call: ToolCallRequest; outcome: ToolOutcome }
  /** A call attempt the format could not parse (or the nudge of a turn without action). */
  | { kind: "malformed"; index: number; malformed: MalformedCall };

/** Records each attempt, appends the turn's observation; the end when it does not fit the budget. */
export function observePhase(
  state: TrajectoryState,
  sample: Sample,
  observed: readonly Observed[],
): LoopStep {
  const { deps, builder } = state;
  const sampledTurn = builder.turns.length - 1;
  const inputs = observed.map((o) => {
    builder.recordToolCall({ ...record(o), turn: sampledTurn });
    return { index: o.index, input: shown(deps.tokenizer, o, deps.limits.maxToolResponseTokens) };
  });
  inputs.sort((a, b) => a.index - b.index);
  const observation = deps.format.renderObservation(inputs.map((x) => x.input));
  const ids =
    observation.kind === "messages"
      ? deps.observationDelta(
          observation.messages.map((m) => ({ ...m })),
          { lastAssistantEndedWithEos: state.endsWithEos(sample.ids) },
        ).ids
      : deps.tokenizer.encode(observation.text);
  const appended = state.appendObservation(ids, "the observation needs");
  return appended.kind === "end" ? appended : NEXT;
}

/** The `tool_calls` entry of an attempt (the whole result, whatever the model is shown). */
function record(o: Observed): Omit<ToolCallRecord, "turn"> {
  switch (o.kind) {
    case "tool": {
      const failed = o.outcome.errorCode !== "OK";
      return {
        name: o.call.name,
        arguments: o.call.arguments,
        result: o.outcome.text,
        latency_ms: o.outcome.latencyMs,
        error_code: failed ? o.outcome.errorCode : o.outcome.isError ? TOOL_ERROR_CODE : null,
        is_error: failed || o.outcome.isError,
        ...(o.outcome.usage ? { usage: o.outcome.usage } : {}),
      };
    }
    case "malformed":
      return {
        name: "",
        arguments: o.malformed.raw,
        result: o.malformed.message,
        latency_ms: 0,
        error_code: `${MALFORMED_CODE_PREFIX}${o.malformed.code}`,
        is_error: true,
      };
  }
}

/** What the format renders for an attempt: a tool's body cut to its token budget. */
function shown(tokenizer: ModelTokenizer, o: Observed, maxTokens: number): ObservationInput {
  switch (o.kind) {
    case "tool": {
      const body = fitBody(tokenizer, o.outcome.text, maxTokens);
      return o.outcome.errorCode !== "OK"
        ? { kind: "failure", name: o.call.name, code: o.outcome.errorCode, message: body }
        : { kind: "result", name: o.call.name, text: body, isError: o.outcome.isError };
    }
    case "malformed":
      return { kind: "malformed", malformed: o.malformed };
  }
}

/**
 * A tool body within `maxTokens` tokens. A text of at most `maxTokens` UTF-8 bytes fits without being
 * tokenized (a token covers at least one byte), which spares short results a second encoding (the
 * observation delta tokenizes them anyway).
 */
function fitBody(tokenizer: ModelTokenizer, text: string, maxTokens: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxTokens) return text;
  return truncateToTokens(tokenizer, text, maxTokens).text;
}
