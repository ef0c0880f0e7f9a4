// `rlf rollout agent`: each trajectory is one run of the user's agent program instead of the built-in
// loop. The engine (create-rollout-engine.ts) still owns everything around it — concurrency, GRPO
// groups, the group's episode and its forks, rewards, output — so an agent's trajectories are scored
// and written exactly as built-in ones.
//
//   open      the sample's episode (a task with `environment`), as the built-in loop does
//   run       the agent program (agent-process.ts) with, in its environment, the capture endpoint's
//             base URL for this trajectory (OPENAI_BASE_URL), the gateway's `/mcp` URL bound to the
//             trajectory and its episode (RLF_MCP_URL, docs/mcp.md), the task and its prompt; the
//             prompt on stdin too. Its exit ends the trajectory.
//   finish    the episode ended (its final state the trajectory's snapshot, for environment rewards),
//             the capture session's tokens turned into the record (capture-session.ts), the status:
//               exit 0                  → completed, `agent_exited`
//               exit ≠ 0 / a signal     → failed, `agent exited with code N: <stderr tail>`
//               past --deadline-ms      → failed, `agent_timeout after N ms`
//               cancelled (Ctrl-C)      → aborted, `cancelled`
//               no model request at all → failed, `agent made no model request`
//   answer    what the rewards grade: the agent's stdout (trimmed), else the format's answer in its
//             last reply.
//
// A session whose requests diverged (a template or agent that rewrote history) has several segments;
// the trajectory is the last one (the one holding the final reply), and `metadata.capture.requests`
// records every request with its `prefix` verdict, so the earlier segments are never re-tokenized into
// trained turns; `metadata.capture.divergences` counts them. The record's `tool_calls` are the calls the
// model made in the segment's sampled turns, with the results the agent sent back (capture-session.ts
// `recordCalls` / `recordResults`); after the agent exits, the gateway's call log of the trajectory
// (`GET /v1/calls`, read from the admin port behind --gateway-mcp) sets how each of them ended in the
// gateway: `error_code`, `is_error`, `latency_ms` (capture/gateway-calls.ts; docs/agents.md, "Tool calls").
import {
  adminBaseFromMcpUrl,
  fetchGatewayCalls,
  type GatewayCallLog,
} from "@rlfactory/clients/gateway-call-log";
import { type Task, TrajectoryBuilder } from "@rlfactory/contracts";
import { type CaptureServer, startCaptureServer } from "../capture/capture-server.ts";
import { callsSince } from "../capture/gateway-calls.ts";
import { boundedSnapshot, type EnvironmentRecord, episodeFailureReason } from "../rollout/episodes.ts";
import { DEFAULT_MAX_SNAPSHOT_BYTES, type LoopDeps } from "../rollout/loop-deps.ts";
import type { TrajectoryRunner } from "../rollout/trajectory-runner.ts";
import type { LoopResult, TrajectoryRun } from "../rollout/trajectory-state.ts";
import { type AgentExit, runAgentProcess } from "./agent-process.ts";

export interface AgentRunnerOptions {
  /** The agent's command line, run by `/bin/sh -c`. */
  command: string;
  /** Each run's wall-clock budget in milliseconds. */
  deadlineMs: number;
  /**
   * The gateway's MCP endpoint (`http://host:port/mcp`); the agent gets it bound to its trajectory, and
   * the gateway's call log is read from the same admin port (`GET /v1/calls`).
   */
  mcpUrl?: string;
  /** The gateway's API key for reading its call log, when its auth is on. */
  gatewayApiKey?: string;
  /** The working directory of the agent (default: this process's). */
  cwd?: string;
  /** The `model` the capture endpoint names (RLF_MODEL; default `captured`). */
  model?: string;
  /** More environment for every run. */
  env?: Record<string, string>;
}

/** The environment variables an agent run gets, in the order docs/agents.md lists them. */
export const AGENT_ENVIRONMENT_VARIABLES = [
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "RLF_MCP_URL",
  "RLF_MODEL",
  "RLF_TASK",
  "RLF_PROMPT",
  "RLF_TRAJECTORY_ID",
] as const;
export type AgentEnvironment = Record<(typeof AGENT_ENVIRONMENT_VARIABLES)[number], string>;

/** How long reading the gateway's call log of one trajectory may take before the record goes without it. */
const GATEWAY_LOG_TIMEOUT_MS = 10_000;

const CAPTURE_ID_UNSAFE = /[^A-Za-z0-9._~-]/g;

/** The prompt an agent gets: the last user message of the task's prompt. */
export function taskPrompt(task: Task): string {
  const user = [...task.prompt].reverse().find((m) => m.role === "user");
  const content = user?.content as unknown;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (typeof p?.text === "string" ? (p.text as string) : "")).join("");
  return "";
}

/** The MCP URL bound to a trajectory (and its episode): docs/mcp.md, "A URL bound to one episode". */
export function boundMcpUrl(mcpUrl: string, trajectoryId: string, episodeId: string | undefined): string {
  const url = new URL(mcpUrl);
  url.searchParams.set("rlf_trajectory", trajectoryId);
  if (episodeId !== undefined) url.searchParams.set("rlf_episode", episodeId);
  return url.toString();
}

function exitReason(exit: AgentExit, deadlineMs: number): { status: "failed" | "aborted"; reason: string } {
  const stderr = exit.stderr.trim().split("\n").slice(-3).join(" | ").slice(-400);
  const said = stderr === "" ? "" : `: ${stderr}`;
  switch (exit.outcome) {
    case "cancelled":
      return { status: "aborted", reason: "cancelled" };
    case "timeout":
      return { status: "failed", reason: `agent_timeout after ${deadlineMs} ms${said}` };
    case "spawn_error":
      return { status: "failed", reason: `agent could not start: ${exit.error ?? "unknown"}` };
    default:
      return {
        status: "failed",
        reason:
          exit.code === null
            ? `agent killed by ${exit.signal ?? "a signal"}${said}`
            : `agent exited with code ${exit.code}${said}`,
      };
  }
}

/**
 * The runner of `rlf rollout agent`: a capture endpoint on loopback in front of the engine's sampler,
 * and per trajectory one run of the agent program.
 */
export async function createAgentRunner(
  deps: LoopDeps,
  options: AgentRunnerOptions,
): Promise<TrajectoryRunner> {
  const model = options.model ?? "captured";
  const capture: CaptureServer = await startCaptureServer({
    sampler: deps.sampler,
    tokenizer: deps.tokenizer,
    toolCallFormat: deps.format,
    model,
    defaultMaxTokens: deps.sampling.max_tokens,
  });
  let seq = 0;

  /** The gateway's call log of one trajectory (`GET /v1/calls` on the admin port behind `mcpUrl`). */
  function readGatewayLog(mcpUrl: string, trajectoryId: string, signal: AbortSignal | undefined) {
    return fetchGatewayCalls(adminBaseFromMcpUrl(mcpUrl), trajectoryId, {
      ...(options.gatewayApiKey === undefined ? {} : { apiKey: options.gatewayApiKey }),
      signal: AbortSignal.any([
        AbortSignal.timeout(GATEWAY_LOG_TIMEOUT_MS),
        ...(signal === undefined ? [] : [signal]),
      ]),
    });
  }

  async function run(task: Task, promptIds: readonly number[], run: TrajectoryRun): Promise<LoopResult> {
    const started = performance.now();
    const captureId = `${++seq}-${run.trajectoryId.replace(CAPTURE_ID_UNSAFE, "_")}`.slice(0, 200);
    const environment: EnvironmentRecord | undefined =
      task.environment === undefined ? undefined : { server: task.environment.server, snapshots: [] };
    let episodeId: string | undefined;
    let initialState: { state: unknown } | undefined;
    let ended: { status: "completed" | "failed" | "aborted"; reason: string } | undefined;
    let exit: AgentExit | undefined;
    /** The gateway's log of this trajectory before the agent started, or why it could not be read. */
    let gatewayBefore: GatewayCallLog | Error | undefined;

    if (run.episode !== undefined) {
      try {
        episodeId = await run.episode();
        initialState = await run.initialState?.();
      } catch (e) {
        ended = { status: "failed", reason: episodeFailureReason(e) };
      }
    }
    if (ended === undefined) {
      const prompt = taskPrompt(task);
      const env: AgentEnvironment = {
        OPENAI_BASE_URL: capture.baseUrl(captureId),
        OPENAI_API_KEY: process.env.OPENAI_API_KEY ?? "rlf-capture",
        RLF_MCP_URL:
          options.mcpUrl === undefined ? "" : boundMcpUrl(options.mcpUrl, run.trajectoryId, episodeId),
        RLF_MODEL: model,
        RLF_TASK: JSON.stringify(task),
        RLF_PROMPT: prompt,
        RLF_TRAJECTORY_ID: run.trajectoryId,
      };
      // Trajectory ids repeat across runs (`task#r1/0`), and the gateway may still hold an earlier run's
      // calls under this one: where its log stands before the agent starts, to leave those out.
      if (options.mcpUrl !== undefined)
        gatewayBefore = await readGatewayLog(options.mcpUrl, run.trajectoryId, run.signal).catch(
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        );
      exit = await runAgentProcess({
        command: options.command,
        env: { ...options.env, ...env },
        stdin: prompt,
        deadlineMs: options.deadlineMs,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      });
      ended =
        exit.outcome === "exited" && exit.code === 0
          ? { status: "completed", reason: "agent_exited" }
          : exitReason(exit, options.deadlineMs);
    }
    if (episodeId !== undefined && deps.episodes !== undefined) {
      try {
        const final = await deps.episodes.end(episodeId);
        environment?.snapshots.push(
          boundedSnapshot(0, final, deps.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES, true, initialState),
        );
      } catch (e) {
        // without the final state a finished trajectory cannot be scored
        if (ended.status === "completed") ended = { status: "failed", reason: episodeFailureReason(e) };
      }
    }

    const session = capture.takeSession(captureId);
    if (session === undefined && ended.status === "completed")
      ended = { status: "failed", reason: "agent made no model request" };
    if (session !== undefined && options.mcpUrl !== undefined && gatewayBefore !== undefined) {
      try {
        if (gatewayBefore instanceof Error) throw gatewayBefore;
        const after = await readGatewayLog(options.mcpUrl, run.trajectoryId, run.signal);
        session.joinGatewayCalls(callsSince(after, gatewayBefore));
      } catch (e) {
        // the calls keep what the conversation says; the record says the gateway's account is missing
        session.gatewayLogUnavailable(e instanceof Error ? e.message : String(e));
      }
    }
    const metadata: Record<string, unknown> = {
      trajectory_id: run.trajectoryId,
      data_source: task.data_source,
      format: deps.format.name,
      ...(environment === undefined ? {} : { environment }),
      ...(exit === undefined
        ? {}
        : {
            agent: {
              outcome: exit.outcome,
              exit_code: exit.code,
              signal: exit.signal,
              duration_ms: Math.round(exit.durationMs),
              ...(exit.stderr.trim() === "" ? {} : { stderr_tail: exit.stderr.slice(-1000) }),
            },
          }),
    };
    const init = {
      taskId: task.id,
      groupId: run.groupId,
      sampleIndex: run.sampleIndex,
      status: ended.status,
      statusReason: ended.reason,
      ...(deps.sampler.logprobsKind === undefined ? {} : { logprobsKind: deps.sampler.logprobsKind }),
      ...(run.policyVersion === undefined ? {} : { policyVersion: run.policyVersion }),
      metadata,
    };
    let builder = session?.builders(init).at(-1);
    if (builder === undefined) {
      builder = new TrajectoryBuilder({
        taskId: task.id,
        groupId: run.groupId,
        sampleIndex: run.sampleIndex,
        promptIds,
        vocabSize: deps.tokenizer.vocabSize,
        metadata,
      });
      builder.finish(ended.status, ended.reason);
    }
    const json = builder.toJSON();
    const sampledTexts = json.turns
      .filter((t) => t.kind === "sampled")
      .map((t) => deps.tokenizer.decode(json.response_ids.slice(t.start, t.end)));
    const parsed = sampledTexts.map((text) => deps.format.parse(text));
    const malformed = parsed.map((p) => p.malformed.length > 0);
    const stdoutAnswer = exit?.stdout.trim() ?? "";
    builder.addTiming("total_ms", performance.now() - started);
    return {
      builder,
      sampledTexts,
      answer: stdoutAnswer !== "" ? stdoutAnswer : (parsed.at(-1)?.answer ?? null),
      malformedTurns: malformed.filter(Boolean).length,
      sampledTurnMalformed: malformed,
      status: ended.status,
      statusReason: ended.reason,
      // An agent's requests are text (the capture endpoint takes no image content yet).
      images: [],
    };
  }

  return { run, close: () => capture.close() };
}
