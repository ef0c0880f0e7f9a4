// The one state a trajectory's phases share (generate → parse → invoke → observe → user turn →
// finish): the record being built, the context sent to the sampler, what the rewards read, the user
// turns and the offered tools, the episode. Phases read the engine's deps and the run from it and
// change it only through the builder, the arrays it holds and the few methods below.
import { isSpanContextValid, type SpanContext, trace } from "@opentelemetry/api";
import { type Task, TrajectoryBuilder, type TrajectoryStatus } from "@rlfactory/contracts";
import { GatewayCallError } from "../gateway-tools.ts";
import { InferenceError } from "../inference/types.ts";
import type { PlannedImage } from "../vision/image-observation.ts";
import type { EnvironmentRecord } from "./episodes.ts";
import { DEFAULT_MAX_SNAPSHOT_BYTES, type LoopDeps } from "./loop-deps.ts";
import type { LoopEnd } from "./loop-outcome.ts";
import { type TaskTools, taskTools } from "./task-tools.ts";
import { overContextBudget } from "./truncation.ts";
import { type UserSimulator, UserSimulatorError, type UserViewMessage } from "./user-simulator.ts";

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
  /** The state this sample's episode starts from (the group's, before its fork), when known. */
  initialState?: () => Promise<{ state: unknown } | undefined>;
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
  /** Every tool-result image, in the order of `images` in the record, with its bytes (stored by the engine). */
  images: PlannedImage[];
}

const toolNames = (tools: readonly { function: { name: string } }[]) => tools.map((t) => t.function.name);

export class TrajectoryState {
  readonly deps: LoopDeps;
  readonly task: Task;
  readonly run: TrajectoryRun;
  /** The task's tools: its plan per user turn, alias and episode lookups. */
  readonly tools: TaskTools;
  /** The user simulator, for a task with `user_simulator`. */
  readonly simulator: UserSimulator | undefined;
  readonly builder: TrajectoryBuilder;
  /** What the caller gets back; its status is set by the finish phase. */
  readonly result: LoopResult;
  /** Prompt + response ids so far: the next generate request's prompt. */
  readonly context: number[];
  /** The images whose placeholder tokens are in `context`, in order: sent with every generate request. */
  readonly contextImages: PlannedImage[] = [];
  readonly userTurns: UserTurnRecord[];
  /** The conversation as the user saw it (the simulator's input). */
  readonly userView: UserViewMessage[];
  /** `metadata.environment` of a task with `environment`: its snapshots. */
  readonly environment: EnvironmentRecord | undefined;
  readonly started = performance.now();
  /** Tool names offered in the current user turn. */
  offered: Set<string>;
  /** This sample's episode while it is open. */
  episodeId: string | undefined;
  /** The episode's initial state, when known: a snapshot over the bound is stored as a diff against it. */
  initialState: { state: unknown } | undefined;
  readonly #eos: ReadonlySet<number>;

  constructor(deps: LoopDeps, task: Task, promptIds: readonly number[], run: TrajectoryRun) {
    this.deps = deps;
    this.task = task;
    this.run = run;
    this.tools = taskTools(deps, task);
    this.simulator = task.user_simulator === undefined ? undefined : deps.userSimulator;
    this.offered = new Set(toolNames(this.tools.plan.perUserTurn[0]!));
    const firstUser = [...task.prompt].reverse().find((m) => m.role === "user")?.content ?? "";
    this.userTurns = [
      {
        index: 0,
        source: "prompt",
        content: firstUser,
        turn: null,
        response_start: 0,
        ...(this.tools.plan.restricted ? { tools: [...this.offered] } : {}),
      },
    ];
    this.userView = [{ from: "user", content: firstUser }];
    const conversational = task.turns !== undefined || task.user_simulator !== undefined;
    const metadata: Record<string, unknown> = {
      trajectory_id: run.trajectoryId,
      // The trace of the `rollout.trajectory` span (its tool calls are children): the console's link.
      ...traceIdOf(trace.getActiveSpan()?.spanContext()),
      data_source: task.data_source,
      format: deps.format.name,
      ...(conversational ? { user_turns: this.userTurns } : {}),
    };
    this.builder = new TrajectoryBuilder({
      taskId: task.id,
      groupId: run.groupId,
      sampleIndex: run.sampleIndex,
      promptIds,
      vocabSize: deps.tokenizer.vocabSize,
      ...(run.policyVersion === undefined ? {} : { policyVersion: run.policyVersion }),
      ...(deps.sampler.logprobsKind === undefined ? {} : { logprobsKind: deps.sampler.logprobsKind }),
      samplingTemperature: deps.sampling.temperature,
      metadata,
    });
    this.result = {
      builder: this.builder,
      sampledTexts: [],
      answer: null,
      malformedTurns: 0,
      sampledTurnMalformed: [],
      status: null,
      statusReason: null,
      images: [],
    };
    this.context = [...promptIds];
    this.#eos = new Set(deps.tokenizer.eosTokenIds);
    this.environment =
      task.environment === undefined ? undefined : { server: task.environment.server, snapshots: [] };
    if (this.environment !== undefined) metadata.environment = this.environment;
  }

  get maxSnapshotBytes(): number {
    return this.deps.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
  }

  /**
   * The one cancellation check: the run's signal is aborted, or `error` (what a phase's collaborator
   * threw) is a cancellation — the sampler's, the gateway's or the user simulator's CANCELLED.
   */
  cancelled(error?: unknown): boolean {
    if (this.run.signal?.aborted === true) return true;
    return (
      (error instanceof InferenceError ||
        error instanceof GatewayCallError ||
        error instanceof UserSimulatorError) &&
      error.code === "CANCELLED"
    );
  }

  /** Counts a sampled turn as malformed or not (what the format rewards read). */
  countSampledTurn(malformed: boolean): void {
    this.result.sampledTurnMalformed.push(malformed);
    if (malformed) this.result.malformedTurns += 1;
  }

  /** Whether the sampled ids end with an EOS token (the chat template's delta then leaves it out). */
  endsWithEos(ids: readonly number[]): boolean {
    const last = ids.at(-1);
    return last !== undefined && this.#eos.has(last);
  }

  /**
   * Appends observation ids (loss mask 0) when prompt + response + them stay under the context budget;
   * else the trajectory ends truncated, `needs` naming what did not fit. Returns the turn's index.
   */
  appendObservation(ids: readonly number[], needs: string): { kind: "appended"; turn: number } | LoopEnd {
    const over = overContextBudget(this.context.length, ids.length, this.deps.limits, needs);
    if (over !== undefined) return over;
    const turn = this.builder.appendObservation(ids);
    this.context.push(...ids);
    return { kind: "appended", turn };
  }
}

/** `{trace_id}` when telemetry is on and the active span is sampled; nothing otherwise. */
function traceIdOf(ctx: SpanContext | undefined) {
  return ctx !== undefined && isSpanContextValid(ctx) && (ctx.traceFlags & 1) === 1
    ? { trace_id: ctx.traceId }
    : {};
}
