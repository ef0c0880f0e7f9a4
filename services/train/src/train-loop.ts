// The training loop over the Tinker API: GRPO with multi-turn tool rollouts, on-policy.
//
// Once: create a session (heartbeat in the background), then a LoRA model — or, resuming from
// `<out>/checkpoint.json`, a new model with the checkpoint's training state loaded into it (load_weights
// is only allowed as a model's first request) — or attach to `tinker.model_id`.
// Each step s = 1..steps:
//   1. the next `tasks_per_step` tasks from the dataset cursor (wrapping around)
//   2. save_weights_for_sampler → the weights after s−1 optimizer steps: policy version s−1
//   3. the rollout engine runs every task group_size times (real tool calls through the gateway,
//      rewards, GRPO advantages), sampling each turn through asample from those weights
//   4. trajectories → datums (datum.ts; each turn's advantage from credit-assignment.ts);
//      forward_backward with the configured loss, then optim_step
//   5. every save_every steps and after the last: save_weights, then `<out>/checkpoint.json`
//   6. one line to `<out>/metrics.jsonl`
// Stopping (the signal): a step still sampling is dropped — nothing of it reached the server — and one
// already training finishes; then the last completed step is checkpointed if it was not yet. A run
// killed outright resumes from its last checkpoint, and the outputs of later steps are dropped then.

import type { Task, Trajectory } from "@rlfactory/contracts";
import type { RolloutEngine } from "@rlfactory/rollout";
import { createRolloutEngine, type EngineParts, loadTasks, tokenizerOfConfig } from "@rlfactory/rollout";
import type { Logger } from "pino";
import { readCheckpoint, type TrainCheckpoint, writeCheckpoint } from "./checkpoint.ts";
import { buildDatums } from "./datum.ts";
import { isTinkerApiError, TrainRunError } from "./errors.ts";
import { appendStepMetrics, prepareRunOutputs, writeStepTrajectories } from "./run-outputs.ts";
import { logprobDiffMean, numericMetrics, rolloutMetrics, type StepMetrics } from "./step-metrics.ts";
import { TinkerClient } from "./tinker-client.ts";
import { TinkerSampler } from "./tinker-sampler.ts";
import type { AdamParams, ForwardBackwardOutput, OptimStepOutput } from "./tinker-schema.ts";
import { samplingTemperatureWarning, type TrainConfig } from "./train-config.ts";

/** What we tell the server we are (create_session's `sdk_version`). */
export const TRAIN_CLIENT_VERSION = "rlfactory-train/0.1.0";

export type TrainEvent =
  | {
      type: "start";
      firstStep: number;
      steps: number;
      modelId: string;
      sessionId: string;
      resumedFrom: TrainCheckpoint | null;
      tasks: number;
    }
  | { type: "step"; metrics: StepMetrics }
  | { type: "checkpoint"; checkpoint: TrainCheckpoint }
  | { type: "retry"; endpoint: string; attempt: number; delayMs: number; message: string }
  | { type: "warning"; message: string }
  | { type: "interrupted"; lastStep: number };

export interface TrainRunOptions {
  /** Overrides `train.out`. */
  outDir?: string;
  /** Insist on resuming: fail when the out dir has no checkpoint.json (one is used anyway when present). */
  resume?: boolean;
  /** Stops the run cleanly (see the header). */
  signal?: AbortSignal;
  onEvent?: (event: TrainEvent) => void;
  log?: Logger;
  /** Parts the rollout engine would build from the config (tests, embedding); never the sampler. */
  engineParts?: Omit<EngineParts, "sampler" | "log">;
}

export interface TrainResult {
  status: "completed" | "interrupted" | "already_done";
  /** The last completed step (0: none). */
  lastStep: number;
  checkpoint: TrainCheckpoint | null;
  outDir: string;
}

/** The model being trained, and the seq_id numbering of its requests (1, 2, … as the SDK does). */
class TrainedModel {
  readonly modelId: string;
  readonly baseModel: string;
  readonly loraRank: number;
  /** An attached model may have had requests already: its seq_ids are not ours to number. */
  readonly #numbered: boolean;
  #seq = 0;

  constructor(modelId: string, baseModel: string, loraRank: number, numbered: boolean) {
    this.modelId = modelId;
    this.baseModel = baseModel;
    this.loraRank = loraRank;
    this.#numbered = numbered;
  }

  nextSeq(): number | undefined {
    return this.#numbered ? ++this.#seq : undefined;
  }
}

export async function runTraining(config: TrainConfig, options: TrainRunOptions = {}): Promise<TrainResult> {
  const outDir = options.outDir ?? config.train.out;
  if (outDir === undefined) throw new TrainRunError("no output directory: give --out DIR or train.out");
  const emit = options.onEvent ?? (() => {});
  const signal = options.signal;
  const { tinker, train } = config;

  const resumed = await readCheckpoint(outDir);
  if (options.resume && resumed === null) {
    throw new TrainRunError(`cannot resume: ${outDir} has no checkpoint.json`);
  }
  if (resumed !== null && tinker.base_model !== undefined && resumed.base_model !== tinker.base_model) {
    throw new TrainRunError(
      `${outDir}/checkpoint.json was trained from ${resumed.base_model}, the config says ${tinker.base_model}: ` +
        "use another out dir to start a new run",
    );
  }
  if (resumed !== null && resumed.base_url !== tinker.base_url) {
    emit({
      type: "warning",
      message: `checkpoint.json was saved on ${resumed.base_url}; resuming on ${tinker.base_url} (its path must exist there)`,
    });
  }
  const tempered = samplingTemperatureWarning(config);
  if (tempered !== null) emit({ type: "warning", message: tempered });
  if (resumed !== null && resumed.step >= train.steps) {
    return { status: "already_done", lastStep: resumed.step, checkpoint: resumed, outDir };
  }
  const tasks = await loadTasks(config.rollout.dataset);
  if (tasks.length < train.tasks_per_step) {
    throw new TrainRunError(
      `train.tasks_per_step is ${train.tasks_per_step} but the dataset has ${tasks.length} tasks: a step cannot hold a task twice`,
    );
  }
  let apiKey: string | undefined;
  if (tinker.api_key_env !== undefined) {
    apiKey = process.env[tinker.api_key_env];
    if (!apiKey)
      throw new TrainRunError(`tinker.api_key_env: environment variable ${tinker.api_key_env} is not set`);
  }
  await prepareRunOutputs(outDir, resumed?.step ?? 0);

  const client = new TinkerClient({
    baseUrl: tinker.base_url,
    ...(apiKey === undefined ? {} : { apiKey }),
    timeoutMs: tinker.timeout_ms,
    pollTimeoutMs: tinker.poll_timeout_ms,
    futureTimeoutMs: tinker.future_timeout_ms,
    pollIntervalMs: tinker.poll_interval_ms,
    retries: tinker.retries,
    maxConcurrency: tinker.max_concurrency,
  });
  const retries = client.onRetry((e) =>
    emit({
      type: "retry",
      endpoint: e.endpoint,
      attempt: e.attempt,
      delayMs: e.delayMs,
      message: e.error.message,
    }),
  );
  let engine: RolloutEngine | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    // the config's tokenizer with its chat_template override: the prompts Tinker samples from are ours
    const tokenizer = options.engineParts?.tokenizer ?? (await tokenizerOfConfig(config.rollout.tokenizer));
    const sampler = new TinkerSampler(client, {
      stopTokenIds: tinker.stop_token_ids ?? tokenizer.eosTokenIds,
    });
    engine = await createRolloutEngine(config.rollout, {
      ...options.engineParts,
      ...(options.log === undefined ? {} : { log: options.log }),
      tokenizer,
      sampler,
    });

    const session = await client.createSession(
      {
        tags: ["rlfactory", "rlf-train"],
        userMetadata: { out_dir: outDir },
        sdkVersion: TRAIN_CLIENT_VERSION,
      },
      signal,
    );
    if (session.warning) emit({ type: "warning", message: `server: ${session.warning}` });
    heartbeat = setInterval(() => {
      client.heartbeat(session.sessionId).catch((e: unknown) => {
        emit({ type: "warning", message: `session heartbeat failed: ${(e as Error).message}` });
      });
    }, tinker.heartbeat_ms);
    heartbeat.unref();

    const model = await openModel(client, config, session.sessionId, resumed, signal);
    const firstStep = (resumed?.step ?? 0) + 1;
    emit({
      type: "start",
      firstStep,
      steps: train.steps,
      modelId: model.modelId,
      sessionId: session.sessionId,
      resumedFrom: resumed,
      tasks: tasks.length,
    });

    const state: LoopState = {
      cursor: resumed?.dataset_cursor ?? 0,
      lastStep: resumed?.step ?? 0,
      samplerPath: resumed?.sampler_path ?? null,
      checkpoint: resumed,
    };
    const ctx: StepContext = { client, config, engine, sampler, model, tasks, outDir, emit };
    for (let step = firstStep; step <= train.steps; step++) {
      if (signal?.aborted) break;
      try {
        await runStep(ctx, state, step, signal);
      } catch (e) {
        if (signal?.aborted && isCancellation(e)) break;
        throw e;
      }
    }
    if (signal?.aborted) {
      // what the run completed since its last checkpoint is saved before it stops
      if (state.lastStep > (state.checkpoint?.step ?? 0)) await saveCheckpoint(ctx, state);
      emit({ type: "interrupted", lastStep: state.lastStep });
      return { status: "interrupted", lastStep: state.lastStep, checkpoint: state.checkpoint, outDir };
    }
    return { status: "completed", lastStep: state.lastStep, checkpoint: state.checkpoint, outDir };
  } finally {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    retries.dispose();
    await engine?.close();
    await client.close();
  }
}

interface LoopState {
  /** Index of the next task (in the dataset's order, wrapping around). */
  cursor: number;
  lastStep: number;
  samplerPath: string | null;
  checkpoint: TrainCheckpoint | null;
}

interface StepContext {
  client: TinkerClient;
  config: TrainConfig;
  engine: RolloutEngine;
  sampler: TinkerSampler;
  model: TrainedModel;
  tasks: readonly Task[];
  outDir: string;
  emit: (event: TrainEvent) => void;
}

async function runStep(
  ctx: StepContext,
  state: LoopState,
  step: number,
  signal?: AbortSignal,
): Promise<void> {
  const { client, config, model } = ctx;
  const { train, tinker } = config;
  const started = performance.now();
  const version = step - 1;
  const k = train.tasks_per_step;
  const stepTasks = Array.from({ length: k }, (_, i) => ctx.tasks[(state.cursor + i) % ctx.tasks.length]!);

  // 2. the sampler weights of this step. Not cancelled: a training request the server may have
  //    received keeps its seq_id, and the next one (the checkpoint when stopping) must follow it.
  let t = performance.now();
  const saved = await client.saveWeightsForSampler({
    modelId: model.modelId,
    ...seq(model),
    name: `sampler-v${pad(version)}`,
  });
  ctx.sampler.setWeights({ path: saved.path, version });
  state.samplerPath = saved.path;
  const saveSamplerMs = performance.now() - t;
  if (signal?.aborted) return;

  // 3. rollouts
  t = performance.now();
  const trajectories: Trajectory[] = [];
  for await (const group of ctx.engine.rollout(stepTasks, {
    policyVersion: version,
    ...(signal === undefined ? {} : { signal }),
  })) {
    trajectories.push(...group.trajectories);
  }
  const rolloutMs = performance.now() - t;
  if (signal?.aborted) return; // cut short: nothing of this step reached the optimizer

  // 4. the update (never cancelled halfway: forward_backward accumulates gradients on the server)
  const batch = buildDatums(trajectories, {
    credit: train.credit_assignment,
    mode: config.rollout.advantage.mode,
    epsilon: config.rollout.advantage.epsilon,
  });
  let fb: ForwardBackwardOutput | null = null;
  let opt: OptimStepOutput | null = null;
  let fbMs = 0;
  let optMs = 0;
  if (batch.datums.length > 0) {
    t = performance.now();
    fb = await client.forwardBackward({
      modelId: model.modelId,
      ...seq(model),
      data: batch.datums,
      lossFn: tinker.loss_fn,
      ...(tinker.loss_fn_config === undefined ? {} : { lossFnConfig: tinker.loss_fn_config }),
    });
    fbMs = performance.now() - t;
    t = performance.now();
    opt = await client.optimStep({ modelId: model.modelId, ...seq(model), adam: adamParams(config) });
    optMs = performance.now() - t;
  } else {
    ctx.emit({
      type: "warning",
      message: `step ${step}: no trajectory could train (see skipped); no update`,
    });
  }
  state.cursor += k;
  state.lastStep = step;
  if (train.save_trajectories) await writeStepTrajectories(ctx.outDir, step, trajectories);

  // 5. the training state, when due (checkpoint.json only after the metrics line, see saveCheckpoint)
  t = performance.now();
  const due = step % train.save_every === 0 || step === train.steps;
  const statePath = due ? await saveState(ctx, step) : null;
  const checkpointMs = performance.now() - t;

  // 6. metrics
  const metrics: StepMetrics = {
    step,
    steps: train.steps,
    policy_version: version,
    task_ids: stepTasks.map((x) => x.id),
    dataset_cursor: state.cursor,
    ...rolloutMetrics(trajectories, batch),
    credit_assignment: train.credit_assignment,
    forward_backward: fb === null ? null : numericMetrics(fb.metrics),
    optim_step: opt === null ? null : numericMetrics(opt.metrics),
    logprob_diff_mean: fb === null ? null : logprobDiffMean(batch, fb),
    sampler_path: saved.path,
    checkpoint_path: statePath,
    timings_ms: {
      save_sampler: saveSamplerMs,
      rollout: rolloutMs,
      forward_backward: fbMs,
      optim_step: optMs,
      checkpoint: checkpointMs,
      total: performance.now() - started,
    },
    time: new Date().toISOString(),
  };
  await appendStepMetrics(ctx.outDir, metrics);
  if (statePath !== null) await recordCheckpoint(ctx, state, statePath);
  ctx.emit({ type: "step", metrics });
}

/** save_weights for the state after `step`; resolves with its tinker:// path. */
async function saveState(ctx: StepContext, step: number): Promise<string> {
  const saved = await ctx.client.saveWeights({
    modelId: ctx.model.modelId,
    ...seq(ctx.model),
    name: `state-step-${pad(step)}`,
  });
  return saved.path;
}

/** checkpoint.json for the state at `statePath` (saved after state.lastStep). */
async function recordCheckpoint(ctx: StepContext, state: LoopState, statePath: string): Promise<void> {
  const checkpoint: TrainCheckpoint = {
    version: 1,
    step: state.lastStep,
    dataset_cursor: state.cursor,
    state_path: statePath,
    sampler_path: state.samplerPath,
    model_id: ctx.model.modelId,
    base_model: ctx.model.baseModel,
    lora_rank: ctx.model.loraRank,
    base_url: ctx.config.tinker.base_url,
    saved_at: new Date().toISOString(),
  };
  await writeCheckpoint(ctx.outDir, checkpoint);
  state.checkpoint = checkpoint;
  ctx.emit({ type: "checkpoint", checkpoint });
}

/** An unscheduled checkpoint of the last completed step (when stopping). */
async function saveCheckpoint(ctx: StepContext, state: LoopState): Promise<void> {
  await recordCheckpoint(ctx, state, await saveState(ctx, state.lastStep));
}

async function openModel(
  client: TinkerClient,
  config: TrainConfig,
  sessionId: string,
  resumed: TrainCheckpoint | null,
  signal?: AbortSignal,
): Promise<TrainedModel> {
  const { tinker } = config;
  const lora = (rank: number) => ({
    rank,
    ...(tinker.lora_seed === undefined ? {} : { seed: tinker.lora_seed }),
  });
  if (resumed !== null) {
    const { modelId } = await client.createModel(
      {
        session_id: sessionId,
        model_seq_id: 0,
        base_model: resumed.base_model,
        lora_config: lora(resumed.lora_rank),
      },
      signal,
    );
    const model = new TrainedModel(modelId, resumed.base_model, resumed.lora_rank, true);
    await client.loadWeights({ modelId, ...seq(model), path: resumed.state_path, optimizer: true }, signal);
    return model;
  }
  if (tinker.model_id !== undefined) {
    const info = await client.getInfo(tinker.model_id, signal);
    const baseModel = info.model_data.base_model;
    if (tinker.base_model !== undefined && tinker.base_model !== baseModel) {
      throw new TrainRunError(
        `tinker.model_id ${tinker.model_id} is a ${baseModel} model, but tinker.base_model says ${tinker.base_model}`,
      );
    }
    return new TrainedModel(
      tinker.model_id,
      baseModel,
      info.model_data.lora_config?.rank ?? tinker.lora_rank,
      false,
    );
  }
  const baseModel = tinker.base_model!; // the config requires base_model or model_id
  const { modelId } = await client.createModel(
    { session_id: sessionId, model_seq_id: 0, base_model: baseModel, lora_config: lora(tinker.lora_rank) },
    signal,
  );
  return new TrainedModel(modelId, baseModel, tinker.lora_rank, true);
}

function adamParams(config: TrainConfig): AdamParams {
  const a = config.train.adam;
  return {
    learning_rate: config.train.learning_rate,
    beta1: a.beta1,
    beta2: a.beta2,
    eps: a.eps,
    weight_decay: a.weight_decay,
    ...(a.grad_clip_norm === undefined ? {} : { grad_clip_norm: a.grad_clip_norm }),
  };
}

function seq(model: TrainedModel): { seqId?: number } {
  const n = model.nextSeq();
  return n === undefined ? {} : { seqId: n };
}

function isCancellation(e: unknown): boolean {
  return isTinkerApiError(e) && e.code === "CANCELLED";
}

function pad(n: number): string {
  return String(n).padStart(6, "0");
}
