// One trajectory, start to finish: generate → parse → invoke → update, at token level.
//
//   prompt ids = tokenize(chat template(task.prompt, tools, generation prompt))   (never cut)
//   loop:
//     generate   the sampler continues prompt + response ids (sampled on EVERY turn, same params)
//     append     its ids + logprobs as they came (loss mask 1; nothing re-tokenized)
//     parse      the turn's text with the format's codec: answer → done; calls / malformed → tools
//     invoke     all calls of the turn in one CallTools RPC (parallel at the gateway)
//     observe    each tool body cut to its token budget, THEN wrapped (template or Search-R1 text),
//                tokenized as a delta and appended with loss mask 0
//     user turn  a turn with no tool call (an answer or plain text) ends the model's turn: when the
//                task has a later user message (its `turns` script, or the user simulator's reply),
//                it is rendered by the chat template and appended with loss mask 0, the offered
//                tools switch (offered-tools.ts), and the loop goes on
//   until an answer (or an ended turn) with no user message left, max turns, or the context budget
//   (→ `truncated`, the question intact).
//   A task with an `environment` runs in this sample's episode (episodes.ts): its calls to the
//   environment's tools carry the episode id, its state is snapshotted when a user turn ends, and the
//   episode is ended on every exit; an episode gone (EPISODE_LOST / EPISODE_NOT_FOUND) fails the trajectory.
//
// Nothing here throws for a trajectory's own failure: every exit is a status with a reason.
import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ChatTool, Task } from "@rlfactory/contracts";
import {
  MALFORMED_CODE_PREFIX,
  policyVersionFromText,
  TOOL_ERROR_CODE,
  TrajectoryBuilder,
  type TrajectoryStatus,
} from "@rlfactory/contracts";
import { GatewayCallError, type ToolCaller } from "../gateway-tools.ts";
import { InferenceError, type SamplingParams, type TokenSampler } from "../inference/types.ts";
import { malformedCall } from "../parsers/malformed.ts";
import type { ObservationInput, ToolCallFormat } from "../parsers/types.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import type { ObservationDeltaFn } from "../tokenizer/observation-delta.ts";
import { truncateToTokens } from "../tokenizer/truncate-to-tokens.ts";
import {
  boundedSnapshot,
  type EnvironmentRecord,
  EPISODE_GONE_CODES,
  type EpisodeApi,
  episodeFailureReason,
} from "./episodes.ts";
import { TOOL_NOT_OFFERED, toolListMessage } from "./offered-tools.ts";
import { taskTools } from "./task-tools.ts";
import {
  policyTextForUser,
  type UserSimulator,
  UserSimulatorError,
  type UserViewMessage,
} from "./user-simulator.ts";

const tracer = trace.getTracer("@rlfactory/rollout");

/** The observation for a turn with neither a tool call nor an answer (`rollout.on_no_action: nudge`). */
export const NO_ACTION_MESSAGE =
  "The previous turn neither called a tool nor gave an answer. Call a tool, or give the final answer inside <answer> and </answer>.";

export interface LoopLimits {
  maxTurns: number;
  maxContextTokens: number;
  maxToolResponseTokens: number;
  toolDeadlineMs: number;
  onNoAction: "end" | "nudge";
}

/** Everything one trajectory needs; shared by all trajectories of an engine. */
export interface LoopDeps {
  sampler: TokenSampler;
  tokenizer: ModelTokenizer;
  format: ToolCallFormat;
  /** Tools rendered into the prompt by the chat template (chat-template formats). */
  tools: readonly ChatTool[];
  enableThinking?: boolean;
  observationDelta: ObservationDeltaFn;
  toolCaller: ToolCaller;
  limits: LoopLimits;
  sampling: SamplingParams;
  /** Writes the later user messages of tasks with `user_simulator` (rollout config `user_simulator`). */
  userSimulator?: UserSimulator;
  /** The gateway's whole catalog, where `tool_aliases` targets are looked up (default: `tools`). */
  catalog?: readonly ChatTool[];
  /** The gateway's episode RPCs, for tasks with an `environment`. */
  episodes?: EpisodeApi;
  /** Each stored snapshot's size bound (`rollout.max_snapshot_bytes`); default 262144. */
  maxSnapshotBytes?: number;
}

export const DEFAULT_MAX_SNAPSHOT_BYTES = 262_144;

/** One user message of a trajectory (`metadata.user_turns`; docs/trajectory.md). */
export interface UserTurnRecord {
  /** 0: the prompt's; k: the k-th later one. */
  index: number;
  source: "prompt" | "script" | "simulator";
  content: string;
  /** Index into `turns` of the observation turn holding it; null for the prompt's. */
  turn: number | null;
  /** Where its tokens start in `response_ids` (0 for the prompt's): the user turn's boundary. */
  response_start: number;
  /** Tool names offered from this user turn on (tasks that name their tools). */
  tools?: string[];
}

export interface TrajectoryRun {
  taskId: string;
  groupId: string;
  sampleIndex: number;
  trajectoryId: string;
  policyVersion?: string | number | null;
  /** Base sampling seed of this trajectory (turn t uses seed + t); omitted: the engine's randomness. */
  seed?: number;
  signal?: AbortSignal;
  /** This sample's episode id (a task with `environment`: fork i of the group's episode); it is ended here. */
  episode?: () => Promise<string>;
}

/** A finished trajectory plus what the rewards read from it. */
export interface LoopResult {
  builder: TrajectoryBuilder;
  /** Decoded text of each sampled turn, in order. */
  sampledTexts: string[];
  /** The final answer (the format's last `<answer>`), or null. */
  answer: string | null;
  /** Sampled turns with at least one malformed call or no action. */
  malformedTurns: number;
  /** Per sampled turn: it had malformed calls or no action. */
  sampledTurnMalformed: boolean[];
  status: TrajectoryStatus | null;
  statusReason: string | null;
}

/**
 * Checks what a task asks of the engine: the tools it names exist, a `user_simulator` task has a
 * simulator configured. Throws naming the task's field.
 */
export function checkTask(
  deps: Pick<LoopDeps, "tools" | "catalog" | "userSimulator" | "episodes">,
  task: Task,
): void {
  taskTools(deps, task);
  if (task.environment !== undefined && deps.episodes === undefined) {
    throw new Error("environment needs the gateway's episode API (the engine was built without a gateway)");
  }
  if (task.user_simulator !== undefined && deps.userSimulator === undefined) {
    throw new Error("user_simulator needs the rollout config's `user_simulator` section (url, model)");
  }
}

/** The prompt's ids: the task's conversation through the chat template, with the generation prompt. */
export function renderPromptIds(
  deps: Pick<LoopDeps, "tokenizer" | "tools" | "catalog" | "enableThinking">,
  task: Task,
): number[] {
  const text = deps.tokenizer.renderChat(task.prompt, {
    addGenerationPrompt: true,
    tools: taskTools(deps, task).plan.perUserTurn[0]!,
    ...(deps.enableThinking === undefined ? {} : { enableThinking: deps.enableThinking }),
  });
  return deps.tokenizer.encode(text);
}

/** Runs one trajectory to a status. `promptIds` are the task's rendered prompt (see renderPromptIds). */
export async function runTrajectory(
  deps: LoopDeps,
  task: Task,
  promptIds: readonly number[],
  run: TrajectoryRun,
): Promise<LoopResult> {
  return tracer.startActiveSpan(
    "rollout.trajectory",
    {
      attributes: {
        "rlf.task_id": task.id,
        "rlf.group_id": run.groupId,
        "rlf.sample_index": run.sampleIndex,
        "rlf.trajectory_id": run.trajectoryId,
      },
    },
    async (span) => {
      try {
        const result = await trajectoryLoop(deps, task, promptIds, run);
        span.setAttributes({
          "rlf.turns": result.builder.turns.length,
          "rlf.status": result.status ?? "unknown",
          "rlf.status_reason": result.statusReason ?? "",
        });
        if (result.status === "failed") {
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.statusReason ?? "failed" });
        }
        return result;
      } finally {
        span.end();
      }
    },
  );
}

async function trajectoryLoop(
  deps: LoopDeps,
  task: Task,
  promptIds: readonly number[],
  run: TrajectoryRun,
): Promise<LoopResult> {
  const { tokenizer, format, limits } = deps;
  const started = performance.now();
  const resolved = taskTools(deps, task);
  const plan = resolved.plan;
  const simulator = task.user_simulator === undefined ? undefined : deps.userSimulator;
  const conversational = task.turns !== undefined || task.user_simulator !== undefined;
  const toolNames = (tools: readonly ChatTool[]) => tools.map((t) => t.function.name);
  let offered = new Set(toolNames(plan.perUserTurn[0]!));
  const firstUser = [...task.prompt].reverse().find((m) => m.role === "user")?.content ?? "";
  const userTurns: UserTurnRecord[] = [
    {
      index: 0,
      source: "prompt",
      content: firstUser,
      turn: null,
      response_start: 0,
      ...(plan.restricted ? { tools: [...offered] } : {}),
    },
  ];
  /** The conversation as the user saw it (the simulator's input). */
  const userView: UserViewMessage[] = [{ from: "user", content: firstUser }];
  const metadata: Record<string, unknown> = {
    trajectory_id: run.trajectoryId,
    data_source: task.data_source,
    format: format.name,
    ...(conversational ? { user_turns: userTurns } : {}),
  };
  const builder = new TrajectoryBuilder({
    taskId: task.id,
    groupId: run.groupId,
    sampleIndex: run.sampleIndex,
    promptIds,
    vocabSize: tokenizer.vocabSize,
    ...(run.policyVersion === undefined ? {} : { policyVersion: run.policyVersion }),
    ...(deps.sampler.logprobsKind === undefined ? {} : { logprobsKind: deps.sampler.logprobsKind }),
    samplingTemperature: deps.sampling.temperature,
    metadata,
  });
  const result: LoopResult = {
    builder,
    sampledTexts: [],
    answer: null,
    malformedTurns: 0,
    sampledTurnMalformed: [],
    status: null,
    statusReason: null,
  };
  const context_ = [...promptIds];
  const eos = new Set(tokenizer.eosTokenIds);
  // The status is set here; the builder is finished by the caller, once the episode (if any) is ended.
  const finish = (status: TrajectoryStatus, reason: string): LoopResult => {
    result.status = status;
    result.statusReason = reason;
    return result;
  };

  // The environment: this sample's episode (ended below on every path), its snapshots per user turn.
  let episodeId: string | undefined;
  const environment: EnvironmentRecord | undefined =
    task.environment === undefined ? undefined : { server: task.environment.server, snapshots: [] };
  if (environment !== undefined) metadata.environment = environment;
  const maxSnapshotBytes = deps.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
  if (run.episode !== undefined) {
    try {
      episodeId = await run.episode();
    } catch (e) {
      return close(finish("failed", episodeFailureReason(e)));
    }
  }
  let out: LoopResult;
  try {
    out = await body();
  } catch (e) {
    // a broken invariant after the status was set: the episode is still ended
    if (episodeId !== undefined) await deps.episodes?.end(episodeId).catch(() => undefined);
    throw e;
  }
  return close(out);

  /** Ends the episode (its final state is the last snapshot), then the trajectory. */
  async function close(out: LoopResult): Promise<LoopResult> {
    if (episodeId !== undefined && deps.episodes !== undefined) {
      const id = episodeId;
      episodeId = undefined;
      try {
        const state = await deps.episodes.end(id);
        environment?.snapshots.push(boundedSnapshot(userTurns.length - 1, state, maxSnapshotBytes, true));
      } catch (e) {
        // the final state is part of the record: without it a finished trajectory cannot be scored
        if (out.status !== "failed" && out.status !== "aborted") finish("failed", episodeFailureReason(e));
      }
    }
    builder.addTiming("total_ms", performance.now() - started);
    builder.finish(out.status ?? "failed", out.statusReason ?? "internal error: no status");
    return out;
  }

  async function body(): Promise<LoopResult> {
    if (promptIds.length >= limits.maxContextTokens) {
      return finish(
        "truncated",
        `prompt is ${promptIds.length} tokens, the context budget is ${limits.maxContextTokens}`,
      );
    }

    try {
      for (let turn = 0; ; turn++) {
        const done = await tracer.startActiveSpan(
          "rollout.turn",
          { attributes: { "rlf.turn": turn } },
          async (span): Promise<LoopResult | null> => {
            try {
              return await step(turn);
            } finally {
              span.end();
            }
          },
        );
        if (done !== null) return done;
      }
    } catch (e) {
      // A bug or a broken invariant: the trajectory still comes back, failed, with the reason.
      if (result.status === null) return finish("failed", `internal error: ${(e as Error).message}`);
      throw e;
    }
  }

  /** One turn; null to go on, the result when the trajectory ended. */
  async function step(turn: number): Promise<LoopResult | null> {
    if (run.signal?.aborted) return finish("aborted", "cancelled");
    const room = limits.maxContextTokens - context_.length;
    const maxTokens = Math.min(deps.sampling.max_tokens, room);
    const sampling: SamplingParams = {
      ...deps.sampling,
      max_tokens: maxTokens,
      stop: [...new Set([...deps.sampling.stop, ...format.stopSequences])],
      ...(run.seed === undefined ? {} : { seed: run.seed + turn }),
    };

    // generate
    let gen: Awaited<ReturnType<TokenSampler["generate"]>>;
    const genStart = performance.now();
    try {
      gen = await inPhaseSpan("generate", () =>
        deps.sampler.generate({
          promptIds: context_,
          sampling,
          sessionId: run.trajectoryId,
          ...(run.signal === undefined ? {} : { signal: run.signal }),
        }),
      );
    } catch (e) {
      builder.addTiming("generate_ms", performance.now() - genStart);
      if (run.signal?.aborted || (e instanceof InferenceError && e.code === "CANCELLED")) {
        return finish("aborted", "cancelled");
      }
      const code = e instanceof InferenceError ? e.code : "ERROR";
      return finish("failed", `inference ${code}: ${(e as Error).message}`);
    }
    builder.addTiming("generate_ms", performance.now() - genStart);
    if (gen.ids.length === 0) {
      return finish("failed", `inference returned no tokens (finish_reason ${gen.finishReason})`);
    }
    builder.appendSampled(gen.ids, gen.logprobs, {
      // SGLang reports text; a step number ("12") is recorded as the number, like the request's
      policyVersion:
        typeof gen.weightVersion === "string" ? policyVersionFromText(gen.weightVersion) : gen.weightVersion,
    });
    context_.push(...gen.ids);
    if (gen.finishReason === "abort") return finish("aborted", "the inference engine aborted the request");

    // parse
    const text = tokenizer.decode(gen.ids, { skipSpecialTokens: true });
    result.sampledTexts.push(text);
    const parsed = format.parse(text);
    const endedTurn =
      parsed.answer !== undefined || (parsed.calls.length === 0 && parsed.malformed.length === 0);
    if (endedTurn && (userTurns.length - 1 < (task.turns?.length ?? 0) || simulator !== undefined)) {
      const next = await nextUserTurn(turn, text, parsed, gen, maxTokens);
      if (next !== "no_more_turns") return next;
    }
    const malformed =
      parsed.malformed.length > 0 || (parsed.calls.length === 0 && parsed.answer === undefined);
    result.sampledTurnMalformed.push(malformed);
    if (malformed) result.malformedTurns += 1;
    if (parsed.answer !== undefined) {
      result.answer = parsed.answer;
      return finish("completed", "answer");
    }
    if (gen.finishReason === "length" && maxTokens < deps.sampling.max_tokens) {
      return finish(
        "truncated",
        `context budget of ${limits.maxContextTokens} tokens reached while generating`,
      );
    }
    if (parsed.calls.length === 0 && parsed.malformed.length === 0) {
      if (limits.onNoAction === "end") {
        return finish("completed", gen.finishReason === "length" ? "no_action_length" : "no_action");
      }
      // `nudge`: tell the model, as an observation, that the turn did nothing, and sample again.
      parsed.malformed.push(malformedCall("UNKNOWN_ACTION", NO_ACTION_MESSAGE, text, 0));
    }
    if (turn + 1 >= limits.maxTurns) return finish("truncated", `max_turns (${limits.maxTurns}) reached`);

    // invoke (only the tools offered in this turn, when the task names its tools)
    const toolStart = performance.now();
    const callable = parsed.calls.filter((c) => !plan.restricted || offered.has(c.name));
    const toGateway = (c: { name: string; arguments: Record<string, unknown> }) => {
      const name = resolved.gatewayName(c.name);
      return {
        name,
        arguments: c.arguments,
        ...(episodeId !== undefined && resolved.inEpisode(name) ? { episodeId } : {}),
      };
    };
    let answered: Awaited<ReturnType<ToolCaller["callTools"]>>;
    try {
      answered =
        callable.length === 0
          ? []
          : await inPhaseSpan("tools", () =>
              deps.toolCaller.callTools(callable.map(toGateway), {
                trajectoryId: run.trajectoryId,
                deadlineMs: limits.toolDeadlineMs,
                ...(run.signal === undefined ? {} : { signal: run.signal }),
              }),
            );
    } catch (e) {
      builder.addTiming("tool_ms", performance.now() - toolStart);
      if (run.signal?.aborted || (e instanceof GatewayCallError && e.code === "CANCELLED")) {
        return finish("aborted", "cancelled");
      }
      // The gateway itself failed (unreachable, ...): not the model's doing, so not shown to it.
      if (e instanceof GatewayCallError) return finish("failed", e.message);
      throw e;
    }
    builder.addTiming("tool_ms", performance.now() - toolStart);
    // The episode is gone (its server died, it expired): the trajectory cannot go on in a fresh state.
    const gone = answered.find((o) => EPISODE_GONE_CODES.has(o.errorCode));
    if (gone !== undefined) return finish("failed", `environment ${gone.errorCode}: ${gone.text}`);
    const sampledTurn = builder.turns.length - 1;
    const outcomes = parsed.calls.map((c) => {
      const k = callable.indexOf(c);
      if (k >= 0) return answered[k];
      return {
        name: c.name,
        isError: true,
        errorCode: TOOL_NOT_OFFERED,
        text: `${c.name} is not offered in this turn (offered: ${[...offered].join(", ") || "none"})`,
        structured: null,
        latencyMs: 0,
      };
    });

    // observe: tool bodies cut to budget before the wrapper is added, in the order of the turn's attempts
    const inputs: { index: number; input: ObservationInput }[] = [];
    parsed.calls.forEach((call, i) => {
      const o = outcomes[i];
      if (o === undefined) return;
      const failed = o.errorCode !== "OK";
      const body = fitBody(tokenizer, o.text, limits.maxToolResponseTokens);
      builder.recordToolCall({
        name: call.name,
        arguments: call.arguments,
        result: o.text,
        latency_ms: o.latencyMs,
        error_code: failed ? o.errorCode : o.isError ? TOOL_ERROR_CODE : null,
        is_error: failed || o.isError,
        turn: sampledTurn,
      });
      const input: ObservationInput = failed
        ? { kind: "failure", name: call.name, code: o.errorCode, message: body }
        : { kind: "result", name: call.name, text: body, isError: o.isError };
      inputs.push({ index: call.index, input });
    });
    for (const m of parsed.malformed) {
      builder.recordToolCall({
        name: "",
        arguments: m.raw,
        result: m.message,
        latency_ms: 0,
        error_code: `${MALFORMED_CODE_PREFIX}${m.code}`,
        is_error: true,
        turn: sampledTurn,
      });
      inputs.push({ index: m.index, input: { kind: "malformed", malformed: m } });
    }
    inputs.sort((a, b) => a.index - b.index);
    const observation = format.renderObservation(inputs.map((x) => x.input));
    const lastId = gen.ids.at(-1);
    const obsIds =
      observation.kind === "messages"
        ? deps.observationDelta(
            observation.messages.map((m) => ({ ...m })),
            {
              lastAssistantEndedWithEos: lastId !== undefined && eos.has(lastId),
            },
          ).ids
        : tokenizer.encode(observation.text);
    if (context_.length + obsIds.length >= limits.maxContextTokens) {
      return finish(
        "truncated",
        `context budget of ${limits.maxContextTokens} tokens reached: the observation needs ${obsIds.length} more`,
      );
    }
    builder.appendObservation(obsIds);
    context_.push(...obsIds);
    return null;
  }

  /**
   * The model ended its turn (an answer or plain text) and the task may have a later user message:
   * append it (with the new tool list first when the set changes) and go on (null), end the
   * trajectory (a result), or "no_more_turns" when the script or the simulator's turns are used up
   * (the single-turn rules then apply).
   */
  async function nextUserTurn(
    turn: number,
    text: string,
    parsed: { answer?: string; malformed: readonly unknown[] },
    gen: { ids: readonly number[]; finishReason: string },
    maxTokens: number,
  ): Promise<LoopResult | null | "no_more_turns"> {
    const index = userTurns.length;
    let content: string;
    let source: UserTurnRecord["source"];
    if (simulator === undefined) {
      const scripted = task.turns?.[index - 1];
      if (scripted === undefined) return "no_more_turns";
      content = scripted.content;
      source = "script";
    } else {
      if (index - 1 >= simulator.maxTurns) return "no_more_turns";
      source = "simulator";
      content = "";
    }
    // a reply in plain text is well-formed: it answers the user (an answer's stray malformed calls are not)
    const malformed = parsed.malformed.length > 0;
    result.sampledTurnMalformed.push(malformed);
    if (malformed) result.malformedTurns += 1;
    const answer = parsed.answer;
    if (answer !== undefined) result.answer = answer;
    if (answer === undefined && gen.finishReason === "length" && maxTokens < deps.sampling.max_tokens) {
      return finish(
        "truncated",
        `context budget of ${limits.maxContextTokens} tokens reached while generating`,
      );
    }
    if (turn + 1 >= limits.maxTurns) return finish("truncated", `max_turns (${limits.maxTurns}) reached`);
    // The user turn that ends here: its state, for per-turn rewards.
    if (episodeId !== undefined && deps.episodes !== undefined) {
      try {
        const state = await deps.episodes.snapshot(episodeId);
        environment?.snapshots.push(boundedSnapshot(index - 1, state, maxSnapshotBytes));
      } catch (e) {
        return finish("failed", episodeFailureReason(e));
      }
    }
    userView.push({ from: "policy", content: policyTextForUser(text) });
    if (simulator !== undefined) {
      const userStart = performance.now();
      try {
        const reply = await simulator.next(task.user_simulator!, userView, run.signal);
        if (reply.kind === "stop") return finish("completed", "user_stop");
        content = reply.content;
      } catch (e) {
        if (run.signal?.aborted || (e instanceof UserSimulatorError && e.code === "CANCELLED")) {
          return finish("aborted", "cancelled");
        }
        if (e instanceof UserSimulatorError) {
          return finish("failed", `user_simulator ${e.code}: ${e.message}`);
        }
        throw e;
      } finally {
        builder.addTiming("user_ms", performance.now() - userStart);
      }
    }
    userView.push({ from: "user", content });
    const nextTools = plan.perUserTurn[Math.min(index, plan.perUserTurn.length - 1)]!;
    const messages = [
      ...(plan.changed[index] === true
        ? [{ role: "system" as const, content: toolListMessage(tokenizer, nextTools) }]
        : []),
      { role: "user" as const, content },
    ];
    const lastId = gen.ids.at(-1);
    const ids = deps.observationDelta(messages, {
      lastAssistantEndedWithEos: lastId !== undefined && eos.has(lastId),
    }).ids;
    if (context_.length + ids.length >= limits.maxContextTokens) {
      return finish(
        "truncated",
        `context budget of ${limits.maxContextTokens} tokens reached: user turn ${index} needs ${ids.length} more`,
      );
    }
    const responseStart = builder.responseLength;
    const at = builder.appendObservation(ids);
    context_.push(...ids);
    offered = new Set(toolNames(nextTools));
    userTurns.push({
      index,
      source,
      content,
      turn: at,
      response_start: responseStart,
      ...(plan.restricted ? { tools: [...offered] } : {}),
    });
    return null;
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

/** Runs `fn` in a child span of the turn; the gateway client sends its context along with the RPC. */
function inPhaseSpan<T>(phase: "generate" | "tools", fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    phase === "generate" ? "rollout.generate" : "rollout.tools",
    {},
    context.active(),
    async (span: Span) => {
      try {
        return await fn();
      } catch (e) {
        span.recordException(e as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}
