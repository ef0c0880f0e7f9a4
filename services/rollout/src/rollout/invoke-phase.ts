// invoke: the turn's calls to offered tools, all in ONE CallTools RPC (the gateway runs them in
// parallel and answers in order), by their gateway names (aliases resolved), the episode id on calls
// to the task's environment server. A call to a tool not offered in the current user turn never
// reaches the gateway: it is answered TOOL_NOT_OFFERED. Each outcome comes back with its call.
// The RPC itself failing ends the trajectory (not the model's doing); so does an episode gone.
import { GatewayCallError, type ToolCallInput, type ToolOutcome } from "../gateway-tools.ts";
import type { ToolCallRequest } from "../parsers/types.ts";
import { EPISODE_GONE_CODES } from "./episodes.ts";
import { CANCELLED, ended, type LoopEnd } from "./loop-outcome.ts";
import { TOOL_NOT_OFFERED } from "./offered-tools.ts";
import { inPhaseSpan } from "./phase-span.ts";
import type { TrajectoryState } from "./trajectory-state.ts";

/** A call and what came of it. */
export interface ToolResult {
  call: ToolCallRequest;
  outcome: ToolOutcome;
}

/** Runs the calls; their results in the calls' order, or the end of the trajectory. */
export async function invokePhase(
  state: TrajectoryState,
  calls: readonly ToolCallRequest[],
): Promise<{ kind: "answered"; results: ToolResult[] } | LoopEnd> {
  const { deps, run, builder, tools } = state;
  const offered = (c: ToolCallRequest) => !tools.plan.restricted || state.offered.has(c.name);
  const sent = calls.filter(offered);
  const started = performance.now();
  let answered: ToolOutcome[];
  try {
    answered =
      sent.length === 0
        ? []
        : await inPhaseSpan("tools", () =>
            deps.toolCaller.callTools(
              sent.map((c) => gatewayCall(state, c)),
              {
                trajectoryId: run.trajectoryId,
                deadlineMs: deps.limits.toolDeadlineMs,
                ...(run.signal === undefined ? {} : { signal: run.signal }),
              },
            ),
          );
  } catch (e) {
    builder.addTiming("tool_ms", performance.now() - started);
    if (state.cancelled(e)) return CANCELLED;
    // The gateway itself failed (unreachable, ...): not the model's doing, so not shown to it.
    if (e instanceof GatewayCallError) return ended("failed", e.message);
    throw e;
  }
  builder.addTiming("tool_ms", performance.now() - started);
  // The episode is gone (its server died, it expired): the trajectory cannot go on in a fresh state.
  const gone = answered.find((o) => EPISODE_GONE_CODES.has(o.errorCode));
  if (gone !== undefined) return ended("failed", `environment ${gone.errorCode}: ${gone.text}`);
  // the gateway answers in the order it was asked: the k-th outcome is the k-th sent call's
  const byIndex = new Map(sent.map((c, k) => [c.index, answered[k]]));
  const results: ToolResult[] = [];
  for (const call of calls) {
    const outcome = offered(call) ? byIndex.get(call.index) : notOffered(state, call);
    if (outcome !== undefined) results.push({ call, outcome });
  }
  return { kind: "answered", results };
}

/** The call as the gateway gets it: its gateway name, the episode id when it runs in the episode. */
function gatewayCall(state: TrajectoryState, call: ToolCallRequest): ToolCallInput {
  const name = state.tools.gatewayName(call.name);
  const episodeId = state.episodeId;
  return {
    name,
    arguments: call.arguments,
    ...(episodeId !== undefined && state.tools.inEpisode(name) ? { episodeId } : {}),
  };
}

function notOffered(state: TrajectoryState, call: ToolCallRequest): ToolOutcome {
  return {
    name: call.name,
    isError: true,
    errorCode: TOOL_NOT_OFFERED,
    text: `${call.name} is not offered in this turn (offered: ${[...state.offered].join(", ") || "none"})`,
    structured: null,
    latencyMs: 0,
  };
}
