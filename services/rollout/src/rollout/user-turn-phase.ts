// next user turn: the model ended its turn (an answer or plain text) and the task has a later user
// message — the next of its `turns` script, or the user simulator's reply. The episode's state is
// snapshotted (the user turn that ends), the message is rendered by the chat template after the
// model's turn (a system message with the new tool list first when the offered set changes) and
// appended with loss mask 0, the offered tools switch, and the loop goes on.
import { boundedSnapshot, episodeFailureReason } from "./episodes.ts";
import type { Sample } from "./generate-phase.ts";
import { CANCELLED, ended, type LoopStep, NEXT } from "./loop-outcome.ts";
import { toolListMessage } from "./offered-tools.ts";
import type { ParsedSample } from "./parse-phase.ts";
import type { TrajectoryState, UserTurnRecord } from "./trajectory-state.ts";
import { cutWhileGenerating, maxTurnsReached } from "./truncation.ts";
import { policyTextForUser, UserSimulatorError } from "./user-simulator.ts";

/**
 * Who writes the next user message: the task's script (while it has one left), the simulator (while
 * its `max_turns` allow), or nobody (the single-turn rules then apply to the model's turn).
 */
export function nextUserSource(
  state: TrajectoryState,
): Exclude<UserTurnRecord["source"], "prompt"> | undefined {
  const later = state.userTurns.length - 1;
  if (state.simulator !== undefined) return later < state.simulator.maxTurns ? "simulator" : undefined;
  return state.task.turns?.[later] === undefined ? undefined : "script";
}

/** Appends the next user message (there is one: see nextUserSource); the end when the trajectory ends. */
export async function userTurnPhase(
  state: TrajectoryState,
  sample: Sample,
  { text, parsed }: ParsedSample,
): Promise<LoopStep> {
  const { deps, task, builder, userTurns } = state;
  const index = userTurns.length;
  const source = nextUserSource(state);
  if (source === undefined) throw new Error(`no user message ${index} to append`);
  // a reply in plain text is well-formed: it answers the user (an answer's stray malformed calls are not)
  state.countSampledTurn(parsed.malformed.length > 0);
  if (parsed.answer !== undefined) state.result.answer = parsed.answer;
  const over =
    cutWhileGenerating(sample, parsed.answer, deps.sampling.max_tokens, deps.limits) ??
    maxTurnsReached(sample.turn, deps.limits);
  if (over !== undefined) return over;
  // The user turn that ends here: its state, for per-turn rewards.
  if (state.episodeId !== undefined && deps.episodes !== undefined) {
    try {
      const snapshot = await deps.episodes.snapshot(state.episodeId);
      state.environment?.snapshots.push(
        boundedSnapshot(index - 1, snapshot, state.maxSnapshotBytes, false, state.initialState),
      );
    } catch (e) {
      return ended("failed", episodeFailureReason(e));
    }
  }
  state.userView.push({ from: "policy", content: policyTextForUser(text) });
  let content = source === "script" ? task.turns![index - 1]!.content : "";
  if (source === "simulator") {
    const started = performance.now();
    try {
      const reply = await state.simulator!.next(task.user_simulator!, state.userView, state.run.signal);
      if (reply.kind === "stop") return ended("completed", "user_stop");
      content = reply.content;
    } catch (e) {
      if (state.cancelled(e)) return CANCELLED;
      if (e instanceof UserSimulatorError) return ended("failed", `user_simulator ${e.code}: ${e.message}`);
      throw e;
    } finally {
      builder.addTiming("user_ms", performance.now() - started);
    }
  }
  state.userView.push({ from: "user", content });
  const plan = state.tools.plan;
  const nextTools = plan.perUserTurn[Math.min(index, plan.perUserTurn.length - 1)]!;
  const messages = [
    ...(plan.changed[index] === true
      ? [{ role: "system" as const, content: toolListMessage(deps.tokenizer, nextTools) }]
      : []),
    { role: "user" as const, content },
  ];
  const ids = deps.observationDelta(messages, {
    lastAssistantEndedWithEos: state.endsWithEos(sample.ids),
  }).ids;
  const responseStart = builder.responseLength;
  const appended = state.appendObservation(ids, `user turn ${index} needs`);
  if (appended.kind === "end") return appended;
  state.offered = new Set(nextTools.map((t) => t.function.name));
  userTurns.push({
    index,
    source,
    content,
    turn: appended.turn,
    response_start: responseStart,
    ...(plan.restricted ? { tools: [...state.offered] } : {}),
  });
  return NEXT;
}
