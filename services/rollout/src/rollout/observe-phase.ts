// observe: what the turn's call attempts came to, recorded (`tool_calls`, in the order given) and
// shown to the model as ONE observation in the order of the turn's attempts: tool bodies cut to
// `max_tool_response_tokens` BEFORE the format's wrapper is added (template tool messages or
// Search-R1's text), tokenized as a delta after the sampled turn and appended with loss mask 0.
// An observation kind is one member of `Observed` and one case of `record` and `shown` below.
// Images (vision/image-observation.ts decides each one first): a tool result's images follow its
// (cut) body as their placeholder spans or one-line notes; the placeholder runs found in the appended
// ids must be the shown images' counts, in order, or the trajectory fails (a tool's text that holds
// image tokens itself). Each image is recorded with its span; shown ones join the context's images.
import { MALFORMED_CODE_PREFIX, TOOL_ERROR_CODE, type ToolCallRecord } from "@rlfactory/contracts";
import type { ToolOutcome } from "../gateway-tools.ts";
import type { MalformedCall, ObservationInput, ToolCallRequest } from "../parsers/types.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import { truncateToTokens } from "../tokenizer/truncate-to-tokens.ts";
import type { PlannedImage } from "../vision/image-observation.ts";
import { IMAGE_PAD } from "../vision/image-placeholders.ts";
import type { Sample } from "./generate-phase.ts";
import { ended, type LoopStep, NEXT } from "./loop-outcome.ts";
import type { TrajectoryState } from "./trajectory-state.ts";

/** One call attempt of the turn and what came of it; `index`: its position among the turn's attempts. */
export type Observed =
  /** A call that reached a tool (or was refused before it: TOOL_NOT_OFFERED). */
  | {
      kind: "tool";
      index: number;
      call: ToolCallRequest;
      outcome: ToolOutcome;
      /** What the model is shown of the result's images (absent: none). */
      images?: readonly PlannedImage[];
    }
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
    const toolCall = builder.toolCallCount;
    builder.recordToolCall({ ...record(o), turn: sampledTurn });
    const images = o.kind === "tool" ? (o.images ?? []) : [];
    return {
      index: o.index,
      input: shown(deps.tokenizer, o, deps.limits.maxToolResponseTokens),
      images: images.map((image) => ({ image, toolCall })),
    };
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
  const images = inputs.flatMap((x) => x.images);
  const spans = imageSpans(state, ids, images);
  if (typeof spans === "string") return ended("failed", spans);
  const at = builder.responseLength;
  const appended = state.appendObservation(ids, "the observation needs");
  if (appended.kind === "end") return appended;
  let k = 0;
  for (const { image, toolCall } of images) {
    const span = image.tokens > 0 ? spans[k++] : undefined;
    builder.recordImage({
      sha256: image.sha256,
      mime_type: image.mimeType,
      path: imagePath(image),
      width: image.width,
      height: image.height,
      shown: image.shown,
      tool_call: toolCall,
      turn: appended.turn,
      ...(span === undefined ? {} : { start: at + span.start, end: at + span.end }),
      ...(image.sourceSha256 === undefined ? {} : { source_sha256: image.sourceSha256 }),
    });
    state.result.images.push(image);
    if (span !== undefined) state.contextImages.push(image);
  }
  return NEXT;
}

/** Where an image's bytes are stored, relative to the run directory: by content hash, the type's extension. */
export function imagePath(image: Pick<PlannedImage, "sha256" | "mimeType">): string {
  const subtype = /^image\/([a-z0-9.+-]+)$/i.exec(image.mimeType)?.[1]?.toLowerCase();
  const ext = subtype === "jpeg" ? "jpg" : subtype?.replace(/[^a-z0-9]/g, "") || "bin";
  return `images/${image.sha256}.${ext}`;
}

/**
 * The `<|image_pad|>` runs of an observation's ids, one per shown image in order, each as long as its
 * count; else why not.
 */
function imageSpans(
  state: TrajectoryState,
  ids: readonly number[],
  images: readonly { image: PlannedImage }[],
): { start: number; end: number }[] | string {
  const want = images.map((x) => x.image.tokens).filter((n) => n > 0);
  const pad = state.deps.vision === undefined ? undefined : state.deps.tokenizer.tokenId(IMAGE_PAD);
  const runs: { start: number; end: number }[] = [];
  if (pad !== undefined) {
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== pad) continue;
      const start = i;
      while (i < ids.length && ids[i] === pad) i++;
      runs.push({ start, end: i });
    }
  }
  const got = runs.map((r) => r.end - r.start);
  if (got.length === want.length && got.every((n, i) => n === want[i])) return runs;
  return `image placeholders: the observation holds ${IMAGE_PAD} runs of [${got.join(", ")}] tokens, its images need [${want.join(", ")}] (a tool's text with image tokens of its own?)`;
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
      // the images after the body, which alone meets the token budget
      const text = [body, ...(o.images ?? []).map((image) => image.text)].filter((t) => t !== "").join("\n");
      return o.outcome.errorCode !== "OK"
        ? { kind: "failure", name: o.call.name, code: o.outcome.errorCode, message: body }
        : { kind: "result", name: o.call.name, text, isError: o.outcome.isError };
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
