// The rollout engine: every (task, sample) pair is its own async trajectory (rollout-loop.ts) under one
// global concurrency limit, with no per-turn batch barrier. A group is scored and normalised (GRPO) as
// soon as its last sample finishes, and handed out then: the caller sees groups in completion order.

import { readFile } from "node:fs/promises";
import { GatewayClient } from "@rlfactory/clients";
import type { ChatTool, Task, Trajectory } from "@rlfactory/contracts";
import { bulkhead } from "cockatiel";
import type { Logger } from "pino";
import { gatewayTools, type ToolCaller, type ToolInvoker } from "../gateway-tools.ts";
import { groupAdvantages } from "../grpo.ts";
import { createSampler } from "../inference/sampler-config.ts";
import type { TokenSampler } from "../inference/types.ts";
import { directoryImageStore, type ImageStore } from "../output/image-store.ts";
import { toolCallFormat } from "../parsers/registry.ts";
import type { ToolCallFormat } from "../parsers/types.ts";
import { GrpcJudge } from "../rewards/judge.ts";
import { createRewardFn } from "../rewards/reward-config.ts";
import { configuredTokenizer, type ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import { createObservationDelta } from "../tokenizer/observation-delta.ts";
import { PiecewiseEncoder } from "../tokenizer/piecewise-encoder.ts";
import { checkedTokenizer } from "../tokenizer/tokenizer-check.ts";
import { templateRendersTools, withToolSystemMessage } from "../tokenizer/tool-prompt.ts";
import { turnRewardMeans } from "../turn-rewards.ts";
import { visionSettings } from "../vision/vision-config.ts";
import { AsyncQueue } from "./async-queue.ts";
import { type EpisodeApi, gatewayEpisodes, groupEpisodes } from "./episodes.ts";
import { imagePath } from "./observe-phase.ts";
import { isInlineChatTemplate, type RolloutConfig } from "./rollout-config.ts";
import type { InferenceTarget, RolloutEngine, RolloutOptions, TrajectoryGroup } from "./rollout-engine.ts";
import { checkTask, type LoopDeps, type LoopResult, renderPromptIds, runTrajectory } from "./rollout-loop.ts";
import type { TrajectoryRunnerFactory } from "./trajectory-runner.ts";
import { TrajectorySignals } from "./trajectory-signals.ts";
import { createUserSimulator, type UserSimulator } from "./user-simulator.ts";

export interface EngineParts {
  log?: Logger;
  /** Replace the parts the config would build (tests, embedding): a sampler, tools, a tokenizer. */
  sampler?: TokenSampler;
  toolCaller?: ToolCaller;
  toolInvoker?: ToolInvoker;
  /** The tools shown to the model; default: the gateway's catalog filtered by `gateway.tools`. */
  tools?: ChatTool[];
  tokenizer?: ModelTokenizer;
  /** Replaces the user simulator the config's `user_simulator` section would build. */
  userSimulator?: UserSimulator;
  /** Replaces the gateway's episode RPCs (tasks with `environment`). */
  episodes?: EpisodeApi;
  /**
   * Where the trajectories' tool-result images go (`images[].path`); default: the run directory
   * `output.dir` when set, else the images are recorded by hash only.
   */
  imageStore?: ImageStore;
  /** Where `tool_aliases` targets are looked up; default: the gateway's whole catalog. */
  catalog?: ChatTool[];
  /**
   * Start-up warnings (a server the tokenizer check could not ask, a chat template that drops tools);
   * default: `log.warn`, else `process.emitWarning`.
   */
  warn?: (message: string) => void;
  /**
   * Runs each trajectory instead of the built-in loop, built once from the engine's parts
   * (`rlf rollout agent`: the user's agent program, agent/agent-runner.ts).
   */
  runner?: TrajectoryRunnerFactory;
}

/** A rollout request's tasks could not be rendered into prompts (bad messages, template error). */
export class InvalidTaskError extends Error {
  override name = "InvalidTaskError";
}

export async function createRolloutEngine(
  config: RolloutConfig,
  parts: EngineParts = {},
): Promise<RolloutEngine> {
  const warn =
    parts.warn ??
    ((message: string) =>
      parts.log ? parts.log.warn(message) : process.emitWarning(message, "RolloutWarning"));
  const chatTemplate = await readChatTemplate(config.tokenizer.chat_template);
  let tokenizer = parts.tokenizer;
  let sampler = parts.sampler;
  if (sampler === undefined) {
    const made = createSampler(config.inference);
    if (!made.trainable) {
      await made.close();
      throw new Error(
        "inference.engine chat-completions returns text, not token ids: it cannot produce trainable trajectories (use vllm or sglang)",
      );
    }
    sampler = made;
    if (tokenizer === undefined) {
      // the config's servers: check the tokenizer against them (refuses to start on a mismatch)
      const inference = config.inference;
      const apiKey =
        inference.api_key ??
        (inference.api_key_env === undefined ? undefined : process.env[inference.api_key_env]);
      try {
        ({ tokenizer } = await checkedTokenizer({
          path: config.tokenizer.path,
          ...(chatTemplate === undefined ? {} : { chatTemplate }),
          engine: inference.engine === "sglang" ? "sglang" : "vllm",
          urls: inference.urls,
          ...(inference.model === undefined ? {} : { model: inference.model }),
          ...(apiKey === undefined ? {} : { apiKey }),
          timeoutMs: Math.min(inference.timeout_ms, 15_000),
          warn,
        }));
      } catch (e) {
        await made.close();
        throw e;
      }
    }
  }
  if (tokenizer === undefined) {
    tokenizer = await configuredTokenizer(
      config.tokenizer.path,
      chatTemplate === undefined ? {} : { chatTemplate },
    );
  }
  const gateway =
    parts.toolCaller && parts.toolInvoker && parts.tools
      ? undefined
      : new GatewayClient(config.gateway.address, {
          ...(config.gateway.api_key_env ? { apiKey: process.env[config.gateway.api_key_env] ?? "" } : {}),
        });
  const format: ToolCallFormat = toolCallFormat(config.format.name, {
    ...(config.format.search_tool === undefined ? {} : { searchTool: config.format.search_tool }),
  });
  const listed =
    parts.tools !== undefined || format.name === "search-r1"
      ? undefined
      : await catalogTools(gateway!, config);
  const tools = parts.tools ?? listed?.offered ?? [];
  const catalog = parts.catalog ?? listed?.all;
  tokenizer = toolAwareTokenizer(tokenizer, tools, config, warn);
  const episodes = parts.episodes ?? (gateway === undefined ? undefined : gatewayEpisodes(gateway));
  // One adapter for the loop's calls and the rewards' verify calls (gateway-tools.ts).
  const viaGateway = gateway === undefined ? undefined : gatewayTools(gateway);
  const toolCaller = parts.toolCaller ?? viaGateway!;
  const toolInvoker = parts.toolInvoker ?? viaGateway!;
  const reward = createRewardFn(config.reward);
  const judge = config.judge
    ? new GrpcJudge(config.judge.address, { timeoutMs: config.judge.timeout_ms })
    : undefined;
  const r = config.rollout;
  const userSimulator =
    parts.userSimulator ??
    (config.user_simulator === undefined ? undefined : createUserSimulator(config.user_simulator));
  const deps: LoopDeps = {
    ...(userSimulator === undefined ? {} : { userSimulator }),
    sampler,
    tokenizer,
    format,
    tools,
    ...(config.tokenizer.enable_thinking === undefined
      ? {}
      : { enableThinking: config.tokenizer.enable_thinking }),
    observationDelta: createObservationDelta(tokenizer, {
      tools,
      ...(config.tokenizer.enable_thinking === undefined
        ? {}
        : { enableThinking: config.tokenizer.enable_thinking }),
    }),
    // the system prompt with the tools is the same for every task: encoded once per engine
    promptEncoder: new PiecewiseEncoder(tokenizer),
    toolCaller,
    ...(catalog === undefined ? {} : { catalog }),
    ...(episodes === undefined ? {} : { episodes }),
    ...(tokenizer.templateRendersImages ? { vision: visionSettings(config.vision) } : {}),
    maxSnapshotBytes: r.max_snapshot_bytes,
    limits: {
      maxTurns: r.max_turns,
      maxContextTokens: r.max_context_tokens,
      maxToolResponseTokens: r.max_tool_response_tokens,
      toolDeadlineMs: config.gateway.deadline_ms,
      onNoAction: r.on_no_action,
    },
    sampling: r.sampling,
  };
  const runner = parts.runner === undefined ? undefined : await parts.runner(deps);
  const targets = new TargetSamplers(config);
  // One limit across all requests: a trainer serving several batches never exceeds it.
  const slots = bulkhead(r.max_concurrency, Number.POSITIVE_INFINITY);
  let requestSeq = 0;
  const log = parts.log;

  const imageStore =
    parts.imageStore ??
    (config.output.dir === undefined ? undefined : directoryImageStore(config.output.dir));

  async function score(task: Task, loop: LoopResult, signal: AbortSignal): Promise<Trajectory> {
    const trajectory = loop.builder.toJSON();
    // the images first: a record handed out refers to bytes that are there
    if (imageStore !== undefined)
      for (const image of loop.images) await imageStore.put(imagePath(image), image.data);
    // An aborted or failed rollout is unfinished, not wrong: no reward (never a silent 0), so GRPO
    // leaves it out of its group's baseline and engines train nothing on it.
    if (trajectory.status === "aborted" || trajectory.status === "failed") return trajectory;
    const started = performance.now();
    const scored = await reward.score(
      {
        task,
        trajectory,
        sampledTexts: loop.sampledTexts,
        answer: loop.answer,
        malformedTurns: loop.malformedTurns,
        sampledTurnMalformed: loop.sampledTurnMalformed,
      },
      {
        tools: toolInvoker,
        ...(judge === undefined ? {} : { judge }),
        ...(episodes === undefined ? {} : { episodes }),
        signal,
      },
    );
    trajectory.reward = scored.reward;
    trajectory.reward_components = scored.components;
    trajectory.reward_error = scored.error;
    if (scored.turnRewards !== undefined) trajectory.turn_rewards = scored.turnRewards;
    trajectory.timings.reward_ms = performance.now() - started;
    return trajectory;
  }

  return {
    async *rollout(tasks: readonly Task[], options: RolloutOptions = {}): AsyncGenerator<TrajectoryGroup> {
      const groupSize = options.groupSize ?? r.group_size;
      const request = ++requestSeq;
      const prompts = tasks.map((task) => {
        try {
          checkTask(deps, task);
        } catch (e) {
          throw new InvalidTaskError(`task ${task.id}: ${(e as Error).message}`);
        }
        try {
          return renderPromptIds(deps, task);
        } catch (e) {
          throw new InvalidTaskError(`task ${task.id}: cannot render its prompt: ${(e as Error).message}`);
        }
      });
      const target = options.inference === undefined ? undefined : targets.acquire(options.inference);
      const requestDeps: LoopDeps = {
        ...deps,
        ...(target === undefined ? {} : { sampler: target.sampler }),
        sampling: { ...deps.sampling, ...options.sampling },
        limits: { ...deps.limits, ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }) },
      };
      const abort = new AbortController();
      const onOuterAbort = () => abort.abort();
      options.signal?.addEventListener("abort", onOuterAbort, { once: true });
      // each trajectory's requests listen on its own signal, not all on the request's (see the file)
      const trajectorySignals = new TrajectorySignals(abort.signal);
      const queue = new AsyncQueue<TrajectoryGroup>();
      let pendingGroups = tasks.length;
      if (pendingGroups === 0) queue.end();

      tasks.forEach((task, t) => {
        const groupId = `${task.id}#r${request}`;
        const done: (Trajectory | undefined)[] = new Array(groupSize);
        let remaining = groupSize;
        // a task with an environment: one episode for the group, forked into its samples
        const episodeOf =
          task.environment === undefined || episodes === undefined
            ? undefined
            : groupEpisodes(episodes, task.environment, groupSize);
        for (let i = 0; i < groupSize; i++) {
          const trajectoryId = `${groupId}/${i}`;
          const own = trajectorySignals.open();
          const run = {
            taskId: task.id,
            groupId,
            sampleIndex: i,
            trajectoryId,
            signal: own.signal,
            ...(options.policyVersion === undefined ? {} : { policyVersion: options.policyVersion }),
            ...(config.seed === undefined ? {} : { seed: config.seed + (t * groupSize + i) * 1000 }),
            ...(episodeOf === undefined
              ? {}
              : { episode: () => episodeOf(i), initialState: () => episodeOf.initial() }),
          };
          slots
            // a trajectory whose slot comes after cancellation ends at once as `aborted`
            .execute(() =>
              runner === undefined
                ? runTrajectory(requestDeps, task, prompts[t]!, run)
                : runner.run(task, prompts[t]!, run),
            )
            .then((loop) => score(task, loop, own.signal))
            .then(
              (trajectory) => {
                done[i] = trajectory;
              },
              (e: unknown) => {
                // Only a bug gets here (the loop and the reward fn turn failures into fields).
                log?.error({ err: e, trajectoryId }, "trajectory lost to an internal error");
                queue.fail(e instanceof Error ? e : new Error(String(e)));
              },
            )
            .finally(() => {
              own.close();
              remaining -= 1;
              if (remaining > 0) return;
              const trajectories = done.filter((x): x is Trajectory => x !== undefined);
              const { advantages, stats } = groupAdvantages(
                trajectories.map((x) => x.reward),
                { mode: config.advantage.mode, epsilon: config.advantage.epsilon },
              );
              trajectories.forEach((x, k) => {
                x.advantage = advantages[k] ?? null;
              });
              const turnMeans = turnRewardMeans(trajectories);
              queue.push({
                taskId: task.id,
                groupId,
                trajectories,
                stats:
                  turnMeans === null || turnMeans.length === 0
                    ? stats
                    : { ...stats, turn_reward_mean: turnMeans.map((m) => m.mean) },
              });
              pendingGroups -= 1;
              if (pendingGroups === 0) queue.end();
            });
        }
      });

      try {
        yield* queue;
      } finally {
        // The consumer stopped early (or the request was cancelled): stop what is still running.
        abort.abort();
        options.signal?.removeEventListener("abort", onOuterAbort);
        target?.release();
      }
    },
    async close() {
      await runner?.close();
      await Promise.all([sampler.close(), targets.close(), userSimulator?.close()]);
      gateway?.close();
      judge?.close();
    },
  };
}

/**
 * The tokenizer a config names, without asking any server: `tokenizer.path` with `tokenizer.chat_template`
 * applied. For callers that bring their own sampler (`rlf train`'s Tinker sampler), which the start-up
 * check against vLLM / SGLang does not apply to.
 */
export async function tokenizerOfConfig(config: RolloutConfig["tokenizer"]): Promise<ModelTokenizer> {
  const chatTemplate = await readChatTemplate(config.chat_template);
  return configuredTokenizer(config.path, chatTemplate === undefined ? {} : { chatTemplate });
}

/** `tokenizer.chat_template`: the template text itself, or the file it names (read here). */
async function readChatTemplate(value: string | undefined): Promise<string | undefined> {
  if (value === undefined || isInlineChatTemplate(value)) return value;
  try {
    return await readFile(value, "utf8");
  } catch (e) {
    throw new Error(
      `tokenizer.chat_template ${value}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a Jinja template file or the template text`,
    );
  }
}

/**
 * A chat template that renders nothing for tools (rendered with and without one, compared) never tells
 * the model about them: warn when tools are offered, and with `tokenizer.tool_prompt: system_message`
 * describe the tools in a Hermes-style system message instead (tokenizer/tool-prompt.ts).
 */
function toolAwareTokenizer(
  tokenizer: ModelTokenizer,
  tools: readonly ChatTool[],
  config: RolloutConfig,
  warn: (message: string) => void,
): ModelTokenizer {
  if (config.format.name === "search-r1") return tokenizer; // tools are described by the task's own prompt
  let renders: boolean;
  try {
    renders = templateRendersTools(tokenizer);
  } catch {
    return tokenizer; // a template that cannot render the probe fails on the real prompts, with its message
  }
  if (renders) return tokenizer;
  const fallback = config.tokenizer.tool_prompt === "system_message";
  if (tools.length > 0) {
    const names = tools.map((t) => t.function.name).join(", ");
    const where =
      config.tokenizer.chat_template === undefined ? `of ${tokenizer.source}` : "tokenizer.chat_template";
    warn(
      fallback
        ? `the chat template ${where} renders nothing for tools: ${names} are described in a Hermes-style system message instead (tokenizer.tool_prompt: system_message)`
        : `the chat template ${where} renders nothing for tools: the model is not told about ${names}; set tokenizer.tool_prompt: system_message to describe them in a system message, or tokenizer.chat_template to a template that renders tools`,
    );
  }
  return fallback ? withToolSystemMessage(tokenizer) : tokenizer;
}

/**
 * Samplers for requests that bring their own inference servers (a training engine's vLLM/SGLang),
 * built from the config's inference block with the request's urls/engine/model, shared by requests
 * naming the same target. Unused ones beyond the first MAX_IDLE_TARGETS are closed.
 */
class TargetSamplers {
  static readonly MAX_IDLE_TARGETS = 8;
  readonly #config: RolloutConfig;
  readonly #entries = new Map<string, { sampler: TokenSampler; users: number }>();

  constructor(config: RolloutConfig) {
    this.#config = config;
  }

  acquire(target: InferenceTarget): { sampler: TokenSampler; release(): void } {
    const engine = target.engine ?? (this.#config.inference.engine === "sglang" ? "sglang" : "vllm");
    const model = target.model ?? this.#config.inference.model;
    const logprobsMode = target.logprobsMode ?? this.#config.inference.logprobs_mode;
    const key = JSON.stringify([engine, target.urls, model ?? null, logprobsMode ?? null]);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const sampler = createSampler({
        ...this.#config.inference,
        engine,
        urls: target.urls,
        ...(model === undefined ? {} : { model }),
        ...(logprobsMode === undefined ? {} : { logprobs_mode: logprobsMode }),
      });
      entry = { sampler, users: 0 };
      this.#entries.set(key, entry);
    }
    const used = entry;
    used.users += 1;
    let released = false;
    return {
      sampler: used.sampler,
      release: () => {
        if (released) return;
        released = true;
        used.users -= 1;
        this.#evictIdle();
      },
    };
  }

  #evictIdle(): void {
    const idle = [...this.#entries].filter(([, e]) => e.users === 0);
    for (const [key, entry] of idle.slice(0, Math.max(0, idle.length - TargetSamplers.MAX_IDLE_TARGETS))) {
      this.#entries.delete(key);
      void entry.sampler.close();
    }
  }

  async close(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((e) => e.sampler.close()));
  }
}

/**
 * The gateway's catalog as chat-template tools: all of it (where task aliases point) and the offered
 * part, filtered by `gateway.tools` (unknown names are an error).
 */
async function catalogTools(
  gateway: GatewayClient,
  config: RolloutConfig,
): Promise<{ all: ChatTool[]; offered: ChatTool[] }> {
  let catalog: Awaited<ReturnType<GatewayClient["listTools"]>>;
  try {
    catalog = await gateway.listTools();
  } catch (e) {
    throw new Error(`cannot list tools at gateway ${config.gateway.address}: ${(e as Error).message}`);
  }
  const wanted = config.gateway.tools;
  if (wanted !== undefined) {
    const known = new Set(catalog.map((t) => t.name));
    const missing = wanted.filter((n) => !known.has(n));
    if (missing.length > 0) {
      throw new Error(
        `gateway.tools names ${missing.join(", ")}, not in the gateway's catalog (${[...known].join(", ")})`,
      );
    }
  }
  const all = catalog.map(
    (t): ChatTool => ({
      type: "function" as const,
      function: {
        name: t.name,
        description: t.description,
        parameters: t.input_schema_json ? (JSON.parse(t.input_schema_json) as Record<string, unknown>) : {},
      },
    }),
  );
  return { all, offered: all.filter((t) => wanted === undefined || wanted.includes(t.function.name)) };
}
