// One captured agent session (one trajectory id): the token record of every request the agent made, kept
// as prefix-consistent segments, and the trajectories built from them. Design: see capture-server.ts.
import type { GatewayCallLog } from "@rlfactory/clients/gateway-call-log";
import {
  type LogprobsKind,
  MALFORMED_CODE_PREFIX,
  type ToolCallRecord,
  type Trajectory,
  TrajectoryBuilder,
  type TrajectoryStatus,
} from "@rlfactory/contracts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import type { PiecewiseEncoder } from "../tokenizer/piecewise-encoder.ts";
import { type GatewayJoin, joinGatewayCalls } from "./gateway-calls.ts";

/** How a request's rendered prompt relates to what the session already holds. */
export type PrefixVerdict =
  /** The session's first request: its prompt starts a segment. */
  | "start"
  /** The prompt text extends the segment's text (prompt + sampled turns + observations so far). */
  | "extends"
  /** The template rewrote history (or the agent changed it): a new segment starts at this request. */
  | "diverged";

/** What the session records about one request (kept on the trajectory's `metadata.capture.requests`). */
export interface CaptureRequestRecord {
  /** 0-based, in the order the session processed them. */
  request: number;
  endpoint: "chat" | "completions";
  prefix: PrefixVerdict;
  /** Index of the segment (and so of the trajectory) this request's tokens went to. */
  segment: number;
  /** Token ids of the prompt sent to the inference server. */
  prompt_tokens: number;
  /** Ids appended as an observation turn (mask 0) before this request's sampled turn. */
  observation_tokens: number;
  completion_tokens: number;
  finish_reason: string;
  /**
   * Where the new prompt left the previous segment (`prefix: "diverged"` only): the first differing
   * character of the rendered text, and the number of the previous segment's ids (prompt + response)
   * whose text the new prompt still repeats unchanged.
   */
  diverged_at_char?: number;
  diverged_at_token?: number;
  /** Length of the previous segment in ids (prompt + response) at the divergence. */
  previous_tokens?: number;
}

/** A tool call the capture endpoint returned to the agent (`tool_calls` of a chat reply). */
export interface ReturnedCall {
  /** The `id` the agent got; its `role: "tool"` message answers it with `tool_call_id`. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Position among the turn's call attempts (valid and malformed), as the format parsed them. */
  index: number;
}

/** A call attempt of a sampled turn that the format could not parse (the agent got it as text). */
export interface MalformedAttempt {
  raw: string;
  code: string;
  message: string;
  index: number;
}

/** A tool call of the session: made in a sampled turn, answered (or not) in a later request. */
interface SessionCall {
  /** The agent's id for it; null for a malformed attempt (nothing to answer). */
  id: string | null;
  part: Part;
  /** When the reply carrying it was committed (performance.now()). */
  issuedAt: number;
  answered: boolean;
  record: Omit<ToolCallRecord, "turn">;
}

/** A sampled turn as the engine returned it. */
export interface SampledTurn {
  ids: readonly number[];
  logprobs: readonly number[];
  finishReason: string;
  weightVersion: string | number | null;
}

interface Part {
  kind: "sampled" | "observation";
  ids: number[];
  logprobs: number[];
  policyVersion?: string | number | null;
}

interface Segment {
  promptIds: number[];
  parts: Part[];
  /** The text the segment's ids encode: prompt text, then each part's text. */
  text: string;
  /** Every id of the segment in order (prompt + parts), for divergence positions. */
  allIds: number[];
}

/** What `prepare` decided for one request: the ids to send and how they relate to the session. */
export interface PreparedPrompt {
  promptIds: number[];
  prefix: PrefixVerdict;
  observationIds: number[];
  divergence?: { atChar: number; atToken: number; previousTokens: number };
}

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return n;
}

/** The number of leading ids of `ids` whose decoded text is a prefix of `text` (binary search on decodes). */
function idsRepeated(tokenizer: ModelTokenizer, ids: readonly number[], text: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (text.startsWith(tokenizer.decode(ids.slice(0, mid)))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** What the trajectories of a session are built with (its segments give the tokens). */
export interface TrajectoryInit {
  taskId: string;
  groupId: string;
  sampleIndex: number;
  status?: TrajectoryStatus;
  statusReason?: string | null;
  logprobsKind?: LogprobsKind;
  samplingTemperature?: number;
  policyVersion?: string | number | null;
  /** More `metadata` beside `capture`. */
  metadata?: Record<string, unknown>;
}

/** The captured requests of one trajectory id. Requests must be processed one at a time (`run`). */
export class CaptureSession {
  readonly trajectoryId: string;
  readonly #tokenizer: ModelTokenizer;
  readonly #segments: Segment[] = [];
  readonly #requests: CaptureRequestRecord[] = [];
  /** The sampled part each request committed (undefined: it sampled no id), by request index. */
  readonly #sampledParts: (Part | undefined)[] = [];
  /** Every tool call of the session in the order the model made them. */
  readonly #calls: SessionCall[] = [];
  readonly #now: () => number;
  #queue: Promise<unknown> = Promise.resolve();
  /** What joining the gateway's call log found, or why it could not be read (`metadata.capture`). */
  #gateway: GatewayJoin | { gateway_log_error: string } | undefined;

  readonly #prompts: Pick<PiecewiseEncoder, "encode">;

  /**
   * `prompts`: where prompt text is encoded (a session's first prompt, a diverged one, each observation);
   * default: the tokenizer.
   * `now`: the clock of tool-call latencies (milliseconds; default `performance.now`).
   */
  constructor(
    trajectoryId: string,
    tokenizer: ModelTokenizer,
    prompts?: Pick<PiecewiseEncoder, "encode">,
    now: () => number = () => performance.now(),
  ) {
    this.trajectoryId = trajectoryId;
    this.#tokenizer = tokenizer;
    this.#prompts = prompts ?? { encode: (text) => tokenizer.encode(text) };
    this.#now = now;
  }

  /** How many requests were recorded `prefix: "diverged"`. */
  get divergences(): number {
    return this.#requests.filter((r) => r.prefix === "diverged").length;
  }

  /**
   * Records the tool calls of request `request`'s sampled turn: those returned to the agent (valid) and
   * the attempts the format could not parse (recorded as our own loop records them, `MALFORMED_<code>`),
   * in the order the model wrote them. A valid call's result is `""` until the agent answers it.
   */
  recordCalls(
    request: number,
    calls: readonly ReturnedCall[],
    malformed: readonly MalformedAttempt[] = [],
  ): void {
    const part = this.#sampledParts[request];
    if (part === undefined) return;
    const issuedAt = this.#now();
    const attempts: (SessionCall & { index: number })[] = [
      ...calls.map((c) => ({
        index: c.index,
        id: c.id,
        part,
        issuedAt,
        answered: false,
        record: {
          name: c.name,
          arguments: c.arguments,
          result: "",
          latency_ms: 0,
          error_code: null,
          is_error: false,
        },
      })),
      ...malformed.map((m) => ({
        index: m.index,
        id: null,
        part,
        issuedAt,
        answered: true,
        record: {
          name: "",
          arguments: m.raw,
          result: m.message,
          latency_ms: 0,
          error_code: `${MALFORMED_CODE_PREFIX}${m.code}`,
          is_error: true,
        },
      })),
    ];
    attempts.sort((a, b) => a.index - b.index);
    for (const { index: _index, ...call } of attempts) this.#calls.push(call);
  }

  /**
   * Reads the results of earlier calls from a request's messages: each `role: "tool"` message whose
   * `tool_call_id` names a call not yet answered gives its `result` (the message's text, as the agent
   * sends it to the model) and its `latency_ms` (from the reply that made the call to this request: the
   * agent's whole round trip, tool included).
   */
  recordResults(messages: readonly { role: string; content?: unknown; tool_call_id?: string }[]): void {
    const now = this.#now();
    for (const m of messages) {
      if (m.role !== "tool" || m.tool_call_id === undefined) continue;
      const call = this.#calls.find((c) => !c.answered && c.id === m.tool_call_id);
      if (call === undefined) continue;
      call.answered = true;
      call.record.result = typeof m.content === "string" ? m.content : "";
      call.record.latency_ms = Math.max(0, now - call.issuedAt);
    }
  }

  /**
   * Sets the calls' `error_code`, `is_error` and `latency_ms` from the gateway's call log of this
   * trajectory (gateway-calls.ts); what the join found goes on every record's `metadata.capture`.
   */
  joinGatewayCalls(log: GatewayCallLog): GatewayJoin {
    const join = joinGatewayCalls(
      this.#calls.map((c) => c.record),
      log,
    );
    this.#gateway = join;
    return join;
  }

  /** The gateway's call log could not be read: the calls keep the conversation's values, and the record says why. */
  gatewayLogUnavailable(reason: string): void {
    this.#gateway = { gateway_log_error: reason };
  }

  get requests(): readonly CaptureRequestRecord[] {
    return this.#requests;
  }

  get segmentCount(): number {
    return this.#segments.length;
  }

  /** Runs `fn` after every earlier request of this session finished (requests are ordered per session). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn, fn);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The ids to send for a prompt rendered as `text`: when `text` extends the current segment's text, the
   * segment's ids (kept verbatim, the sampled ones never re-tokenized) plus the encoded remainder (an
   * observation: tool results, user turns, template tokens); otherwise the whole text encoded, starting
   * a new segment.
   */
  prepare(text: string): PreparedPrompt {
    const seg = this.#segments.at(-1);
    if (seg === undefined)
      return { promptIds: this.#prompts.encode(text), prefix: "start", observationIds: [] };
    if (text.startsWith(seg.text)) {
      const observationIds = this.#prompts.encode(text.slice(seg.text.length));
      return { promptIds: seg.allIds.concat(observationIds), prefix: "extends", observationIds };
    }
    const atChar = firstDifference(seg.text, text);
    return {
      promptIds: this.#prompts.encode(text),
      prefix: "diverged",
      observationIds: [],
      divergence: {
        atChar,
        atToken: idsRepeated(this.#tokenizer, seg.allIds, text.slice(0, atChar)),
        previousTokens: seg.allIds.length,
      },
    };
  }

  /** Records a request's prompt (as `prepare` returned it, with the text it encodes) and its sampled turn. */
  commit(
    endpoint: CaptureRequestRecord["endpoint"],
    text: string,
    prepared: PreparedPrompt,
    sampled: SampledTurn,
  ): CaptureRequestRecord {
    if (prepared.prefix !== "extends") {
      this.#segments.push({
        promptIds: [...prepared.promptIds],
        parts: [],
        text,
        allIds: [...prepared.promptIds],
      });
    }
    const seg = this.#segments.at(-1)!;
    if (prepared.prefix === "extends") {
      if (prepared.observationIds.length > 0) {
        seg.parts.push({ kind: "observation", ids: [...prepared.observationIds], logprobs: [] });
        seg.allIds.push(...prepared.observationIds);
      }
      seg.text = text;
    }
    let part: Part | undefined;
    if (sampled.ids.length > 0) {
      part = {
        kind: "sampled",
        ids: [...sampled.ids],
        logprobs: [...sampled.logprobs],
        policyVersion: sampled.weightVersion,
      };
      seg.parts.push(part);
      seg.allIds.push(...sampled.ids);
      seg.text += this.#tokenizer.decode(sampled.ids);
    }
    const record: CaptureRequestRecord = {
      request: this.#requests.length,
      endpoint,
      prefix: prepared.prefix,
      segment: this.#segments.length - 1,
      prompt_tokens: prepared.promptIds.length,
      observation_tokens: prepared.observationIds.length,
      completion_tokens: sampled.ids.length,
      finish_reason: sampled.finishReason,
      ...(prepared.divergence && {
        diverged_at_char: prepared.divergence.atChar,
        diverged_at_token: prepared.divergence.atToken,
        previous_tokens: prepared.divergence.previousTokens,
      }),
    };
    this.#requests.push(record);
    this.#sampledParts.push(part);
    return record;
  }

  /**
   * One trajectory per segment, in the record contract of our own loop (the builder enforces ids, masks
   * and logprobs): sampled turns with the engine's logprobs (mask 1), everything between them as
   * observation turns (mask 0). A session without a divergence gives exactly one. Each carries
   * `metadata.capture` = `{ trajectory_id, segment, segments, divergences, requests }` (every request of
   * the session; after `joinGatewayCalls`, the join's counts too) and, in `tool_calls`, the calls made
   * in its own sampled turns (`turn` set).
   */
  trajectories(init: TrajectoryInit): Trajectory[] {
    return this.builders(init).map((b) => b.toJSON());
  }

  /** The finished builders `trajectories` serialises (callers that score them: `rlf rollout agent`). */
  builders(init: TrajectoryInit): TrajectoryBuilder[] {
    return this.#segments.map((seg, i) => {
      const b = new TrajectoryBuilder({
        taskId: init.taskId,
        groupId: init.groupId,
        sampleIndex: init.sampleIndex,
        promptIds: seg.promptIds,
        vocabSize: this.#tokenizer.vocabSize,
        ...(init.logprobsKind && { logprobsKind: init.logprobsKind }),
        ...(init.samplingTemperature !== undefined && { samplingTemperature: init.samplingTemperature }),
        ...(init.policyVersion !== undefined && { policyVersion: init.policyVersion }),
        metadata: {
          ...init.metadata,
          capture: {
            trajectory_id: this.trajectoryId,
            segment: i,
            segments: this.#segments.length,
            divergences: this.divergences,
            requests: this.#requests.map((r) => ({ ...r })),
            ...this.#gateway,
          },
        },
      });
      const turnOf = new Map<Part, number>();
      for (const p of seg.parts) {
        if (p.kind === "sampled")
          turnOf.set(p, b.appendSampled(p.ids, p.logprobs, { policyVersion: p.policyVersion ?? null }));
        else b.appendObservation(p.ids);
      }
      for (const call of this.#calls) {
        const turn = turnOf.get(call.part);
        if (turn !== undefined) b.recordToolCall({ ...call.record, turn });
      }
      b.finish(init.status ?? "completed", init.statusReason ?? null);
      return b;
    });
  }
}
