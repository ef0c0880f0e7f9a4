// One trajectory, start to finish, at token level: a short chain of phases over one TrajectoryState
// (trajectory-state.ts), each in its own file.
//
//   prompt ids = tokenize(chat template(task.prompt, tools, generation prompt))   (never cut)
//   open       the sample's episode, for a task with an `environment` (finish-phase.ts)
//   each turn (a `rollout.turn` span), after the one cancellation check:
//     generate   the sampler continues prompt + response ids; its ids + logprobs appended (loss mask 1)
//     parse      the turn's text with the format's codec
//     user turn  a turn with no call attempt (an answer or plain text) and a later user message left
//                (the task's `turns`, or the user simulator's reply): appended (loss mask 0), the
//                offered tools switch, next turn
//     action     else the single-turn rules: answer → completed, no action → completed or nudged,
//                cut by the budget or the last allowed turn → truncated; else the calls
//     invoke     all calls of the turn in one CallTools RPC (parallel at the gateway)
//     see        each tool result's images decided: placeholder tokens (a vision-language template,
//                within `vision.max_images`), downscaled, dropped or a text note (image-observation.ts)
//     observe    each attempt recorded; tool bodies cut to their token budget, THEN wrapped, tokenized
//                as a delta and appended (loss mask 0); the images' spans recorded, shown ones sent
//                with every later generate request
//   finish     the episode ended (its final state the last snapshot), the status set
//   until an end: a status with its reason (loop-outcome.ts); every `truncated` reason is in truncation.ts.
//
// Nothing here throws for a trajectory's own failure: every exit is a status with a reason.
import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { Task } from "@rlfactory/contracts";
import { finishPhase, openEpisode } from "./finish-phase.ts";
import { generatePhase } from "./generate-phase.ts";
import { invokePhase } from "./invoke-phase.ts";
import type { LoopDeps } from "./loop-deps.ts";
import { CANCELLED, ended, type LoopEnd, type LoopStep } from "./loop-outcome.ts";
import { type Observed, observePhase } from "./observe-phase.ts";
import { parsePhase, turnAction } from "./parse-phase.ts";
import { seePhase } from "./see-phase.ts";
import { taskTools } from "./task-tools.ts";
import { type LoopResult, type TrajectoryRun, TrajectoryState } from "./trajectory-state.ts";
import { promptTooLong } from "./truncation.ts";
import { nextUserSource, userTurnPhase } from "./user-turn-phase.ts";

export { DEFAULT_MAX_SNAPSHOT_BYTES, type LoopDeps, type LoopLimits } from "./loop-deps.ts";
export { NO_ACTION_MESSAGE } from "./parse-phase.ts";
export type { LoopResult, TrajectoryRun, UserTurnRecord } from "./trajectory-state.ts";

const tracer = trace.getTracer("@rlfactory/rollout");

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

/**
 * The prompt's ids: the task's conversation through the chat template, with the generation prompt;
 * encoded by `deps.promptEncoder` when there is one (the engine's: the system prompt with the tools,
 * the same for every task, is encoded once), else by the tokenizer.
 */
export function renderPromptIds(
  deps: Pick<LoopDeps, "tokenizer" | "tools" | "catalog" | "enableThinking" | "promptEncoder">,
  task: Task,
): number[] {
  const text = deps.tokenizer.renderChat(task.prompt, {
    addGenerationPrompt: true,
    tools: taskTools(deps, task).plan.perUserTurn[0]!,
    ...(deps.enableThinking === undefined ? {} : { enableThinking: deps.enableThinking }),
  });
  return (deps.promptEncoder ?? deps.tokenizer).encode(text);
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
  const state = new TrajectoryState(deps, task, promptIds, run);
  return finishPhase(state, await turns(state));
}

/** Turn after turn until one ends the trajectory. */
async function turns(state: TrajectoryState): Promise<LoopEnd> {
  const unopened = await openEpisode(state);
  if (unopened !== undefined) return unopened;
  const tooLong = promptTooLong(state.context.length, state.deps.limits);
  if (tooLong !== undefined) return tooLong;
  try {
    for (let turn = 0; ; turn++) {
      const step = await tracer.startActiveSpan(
        "rollout.turn",
        { attributes: { "rlf.turn": turn } },
        async (span): Promise<LoopStep> => {
          try {
            return await oneTurn(state, turn);
          } finally {
            span.end();
          }
        },
      );
      if (step.kind === "end") return step;
    }
  } catch (e) {
    // A bug or a broken invariant: the trajectory still comes back, failed, with the reason.
    return ended("failed", `internal error: ${(e as Error).message}`);
  }
}

/** One turn: generate → parse → (next user turn | action → invoke → see → observe). */
async function oneTurn(state: TrajectoryState, turn: number): Promise<LoopStep> {
  if (state.cancelled()) return CANCELLED;
  const generated = await generatePhase(state, turn);
  if (generated.kind === "end") return generated;
  const { sample } = generated;
  const parsed = parsePhase(state, sample);
  if (parsed.endsModelTurn && nextUserSource(state) !== undefined)
    return userTurnPhase(state, sample, parsed);
  const action = turnAction(state, sample, parsed);
  if (action.kind === "end") return action;
  const invoked = await invokePhase(state, action.calls);
  if (invoked.kind === "end") return invoked;
  const observed: Observed[] = [
    ...(await seePhase(state, invoked.results)),
    ...action.malformed.map((malformed) => ({
      kind: "malformed" as const,
      index: malformed.index,
      malformed,
    })),
  ];
  return observePhase(state, sample, observed);
}
