// `rlf train --config FILE --out DIR` as a user runs it, against the Tinker contract test server (which
// samples through the simulated inference server), a real `rlf gateway` and the real search tool: the
// exact request sequence, the datums it sends, its metrics and checkpoints, and resuming after a kill
// and after a clean stop.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import {
  loadTasks,
  qwen3Tokenizer,
  readTrajectoriesJsonl,
  SAMPLE_HOTPOTQA_DATASET,
  SAMPLE_HOTPOTQA_TASKS,
  type Trajectory,
} from "@rlfactory/rollout";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "@rlfactory/test-support/gateway-harness";
import {
  startTinkerContractServer,
  type TinkerContractServer,
} from "@rlfactory/test-support/tinker-contract-server";
import { type Datum, type StepMetrics, trainCheckpointSchema } from "@rlfactory/train";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const API_KEY = "tml-contract-test";
const GROUP_SIZE = 3;
const TASKS_PER_STEP = 2;

let server: TinkerContractServer;
let gateway: ChildGateway;

beforeAll(async () => {
  [server, gateway] = await Promise.all([
    startTinkerContractServer({ apiKey: API_KEY, seed: 5 }),
    spawnGateway({
      servers: { search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"] } },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await gateway?.stop();
});

function writeConfig(
  dir: string,
  train: { steps: number; save_every: number },
  extra: string[] = [],
): string {
  const file = join(dir, "train.yaml");
  const key = (line: string) => line.slice(0, line.indexOf(":"));
  const replaced = new Set(extra.map(key));
  writeFileSync(
    file,
    [
      `tinker: { base_url: "${server.url}", api_key_env: RLF_TEST_TINKER_KEY, base_model: Qwen/Qwen3-4B, lora_rank: 8, poll_interval_ms: 5, heartbeat_ms: 300 }`,
      `gateway: { address: "${gateway.grpcAddress}", tools: [search__search] }`,
      `dataset: { path: ${SAMPLE_HOTPOTQA_TASKS}, data_source: hotpotqa }`,
      `rollout: { group_size: ${GROUP_SIZE}, max_turns: 3, sampling: { temperature: 1.5, max_tokens: 128 } }`,
      "reward: { components: [{ type: exact_match, weight: 1 }, { type: format, weight: 0.1 }] }",
      `train: { steps: ${train.steps}, tasks_per_step: ${TASKS_PER_STEP}, learning_rate: 0.0001, save_every: ${train.save_every}, seed: 3 }`,
    ]
      .filter((line) => !replaced.has(key(line))) // an extra line with the same key replaces it
      .concat(extra)
      .join("\n"),
  );
  return file;
}

const ENV = { ...process.env, RLF_TEST_TINKER_KEY: API_KEY };

function trainChild(
  config: string,
  out: string,
): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, [RLF, "train", "--config", config, "--out", out], {
    cwd: ROOT,
    env: ENV,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

function readMetrics(out: string): StepMetrics[] {
  return readFileSync(join(out, "metrics.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as StepMetrics);
}

function readCheckpointFile(out: string) {
  return trainCheckpointSchema.parse(JSON.parse(readFileSync(join(out, "checkpoint.json"), "utf8")));
}

async function stepTrajectories(out: string, step: number): Promise<Trajectory[]> {
  return readTrajectoriesJsonl(join(out, "trajectories", `step-${String(step).padStart(6, "0")}.jsonl`));
}

/** The calls about one model, from its create_model on, without polls and heartbeats. */
function modelCalls(modelId: string) {
  return server.calls.filter((c) => {
    if (c.path === "/api/v1/create_model") return c.modelId === modelId;
    const body = c.body as { model_id?: string; model_path?: string };
    return body.model_id === modelId || body.model_path?.startsWith(`tinker://${modelId}/`) === true;
  });
}

/** Endpoint names with runs of asample folded into one `asample×N`. */
function shape(calls: { path: string }[]): string[] {
  const names: string[] = [];
  let samples = 0;
  for (const c of calls) {
    const name = c.path.replace("/api/v1/", "");
    if (name === "asample") {
      samples += 1;
      continue;
    }
    if (samples > 0) names.push(`asample×${samples}`);
    samples = 0;
    names.push(name);
  }
  if (samples > 0) names.push(`asample×${samples}`);
  return names;
}

/** What the datum of trajectory `t` must be, computed here from the trajectory's own fields. */
function expectedDatum(t: Trajectory) {
  const seq = [...t.prompt_ids, ...t.response_ids];
  const prompt = t.prompt_ids.length - 1; // positions whose target is still a prompt id
  return {
    input: seq.slice(0, -1),
    target: seq.slice(1),
    weights: [...new Array(prompt).fill(0), ...t.loss_mask],
    logprobs: [...new Array(prompt).fill(0), ...t.rollout_logprobs],
    advantages: [...new Array(prompt).fill(0), ...t.loss_mask.map((m) => (m === 1 ? t.advantage! : 0))],
  };
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** GRPO (verl): (r − mean) / (std + 1e-6) with the unbiased std; a group of equal rewards gets 0. */
function grpo(rewards: number[]): number[] {
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (rewards.length - 1));
  return rewards.map((r) => (rewards.every((x) => x === rewards[0]) ? 0 : (r - mean) / (std + 1e-6)));
}

describe("rlf train", () => {
  const out = join(tempDir("rlf-train-cli-"), "run");
  let stdout = "";
  let modelId = "";
  let firstCall = 0;

  beforeAll(async () => {
    const dir = tempDir("rlf-train-cfg-");
    firstCall = server.calls.length;
    ({ stdout } = await run(
      process.execPath,
      [RLF, "train", "--config", writeConfig(dir, { steps: 3, save_every: 2 }), "--out", out],
      {
        cwd: ROOT,
        env: ENV,
        timeout: 60_000,
      },
    ));
    modelId = readCheckpointFile(out).model_id;
  }, 90_000);

  it("sends only requests that match the pinned Tinker schema, each with the API key", () => {
    expect(server.violations).toEqual([]);
    expect(server.calls.slice(firstCall).every((c) => c.apiKey === API_KEY)).toBe(true);
  });

  it("keeps its session alive with heartbeats naming the session it created", () => {
    const calls = server.calls.slice(firstCall);
    const session = calls.find((c) => c.path === "/api/v1/create_model")!.body as { session_id: string };
    const beats = calls.filter((c) => c.path === "/api/v1/session_heartbeat");
    expect(beats.length).toBeGreaterThan(0);
    for (const b of beats)
      expect(b.body).toEqual({ session_id: session.session_id, type: "session_heartbeat" });
  });

  it("sends the exact request sequence: session, model, then per step sampler weights → samples → forward_backward → optim_step", () => {
    const calls = server.calls
      .slice(firstCall)
      .filter((c) => c.path !== "/api/v1/retrieve_future" && c.path !== "/api/v1/session_heartbeat");
    const samplesPerStep =
      server.samples.filter((s) => s.modelPath.startsWith(`tinker://${modelId}/`)).length / 3;
    expect(samplesPerStep).toBeGreaterThanOrEqual(TASKS_PER_STEP * GROUP_SIZE * 2); // tool call, then answer
    const names = shape(calls);
    const step = (n: number) => [
      "save_weights_for_sampler",
      expect.stringMatching(/^asample×\d+$/),
      "forward_backward",
      "optim_step",
      ...(n === 2 || n === 3 ? ["save_weights"] : []), // save_every 2, and the last step
    ];
    expect(names).toEqual(["create_session", "create_model", ...step(1), ...step(2), ...step(3)]);
    // each step samples from the weights saved at its start: policy version = optimizer steps so far
    const samplerSaves = calls.filter((c) => c.path === "/api/v1/save_weights_for_sampler");
    expect(samplerSaves.map((c) => (c.body as { path: string }).path)).toEqual([
      "sampler-v000000",
      "sampler-v000001",
      "sampler-v000002",
    ]);
    const trainingSeqIds = calls
      .filter(
        (c) =>
          c.path !== "/api/v1/asample" &&
          c.path !== "/api/v1/create_session" &&
          c.path !== "/api/v1/create_model",
      )
      .map((c) => (c.body as { seq_id?: number }).seq_id);
    expect(trainingSeqIds).toEqual(trainingSeqIds.map((_, i) => i + 1));
  });

  it("polls every future until its result, through try_again and 408 answers", () => {
    const submitted = server.calls
      .slice(firstCall)
      .filter((c) => c.requestId !== undefined && c.path !== "/api/v1/retrieve_future");
    expect(submitted.length).toBeGreaterThan(20);
    for (const c of submitted) {
      const polls = server.calls.filter(
        (p) => p.path === "/api/v1/retrieve_future" && p.requestId === c.requestId,
      );
      expect(polls.length, `${c.path} ${c.requestId}`).toBeGreaterThanOrEqual(2);
      expect(polls[0]!.answer).toMatch(/^pending-/);
      expect(polls.at(-1)!.answer).toBe("result");
    }
    const pending = new Set(server.calls.map((c) => c.answer).filter((a) => a?.startsWith("pending")));
    expect(pending).toEqual(new Set(["pending-try_again", "pending-408"]));
  });

  it("sends one datum per trajectory: input shifted to targets, weights = loss mask, rollout logprobs, GRPO advantages", async () => {
    const fbCalls = server.calls.slice(firstCall).filter((c) => c.path === "/api/v1/forward_backward");
    expect(fbCalls).toHaveLength(3);
    let observationTokens = 0;
    let nonZeroAdvantages = 0;
    for (const [i, call] of fbCalls.entries()) {
      const body = call.body as { forward_backward_input: { loss_fn: string; data: Datum[] } };
      expect(body.forward_backward_input.loss_fn).toBe("importance_sampling");
      const trajectories = await stepTrajectories(out, i + 1);
      expect(trajectories).toHaveLength(TASKS_PER_STEP * GROUP_SIZE);
      expect(trajectories.every((t) => t.status === "completed")).toBe(true);
      // GRPO advantages, recomputed from the rewards of each group
      for (const groupId of new Set(trajectories.map((t) => t.group_id))) {
        const group = trajectories
          .filter((t) => t.group_id === groupId)
          .sort((a, b) => a.sample_index - b.sample_index);
        const want = grpo(group.map((t) => t.reward!));
        for (const [k, t] of group.entries()) expect(t.advantage).toBeCloseTo(want[k]!, 9);
      }
      const datums = body.forward_backward_input.data;
      expect(datums).toHaveLength(trajectories.length);
      const unmatched = [...trajectories];
      for (const datum of datums) {
        const got = datum.loss_fn_inputs;
        const input = datum.model_input.chunks.flatMap((c) => c.tokens);
        const actual = {
          input,
          target: got.target_tokens.data,
          weights: got.weights.data,
          logprobs: got.logprobs?.data,
          advantages: got.advantages?.data,
        };
        // samples of one group can share their ids (not their logprobs): match on every field
        const k = unmatched.findIndex((x) => isDeepStrictEqual(expectedDatum(x), actual));
        expect(k, "a trajectory behind every datum, with exactly these inputs").toBeGreaterThanOrEqual(0);
        const t = unmatched.splice(k, 1)[0];
        // tool results and template tokens between turns are in the input but never trained on
        observationTokens += t!.loss_mask.filter((m) => m === 0).length;
        if (t!.advantage !== 0) nonZeroAdvantages += 1;
      }
    }
    expect(observationTokens).toBeGreaterThan(0);
    expect(nonZeroAdvantages).toBeGreaterThan(0);
  });

  it("records on each trajectory the sampler it sampled from, and the server's samples unchanged", async () => {
    for (const step of [1, 2, 3]) {
      for (const t of await stepTrajectories(out, step)) {
        expect(t.policy_version).toBe(step - 1);
        for (const turn of t.turns.filter((x) => x.kind === "sampled")) {
          expect(turn.policy_version).toBe(step - 1);
          const ids = t.response_ids.slice(turn.start, turn.end);
          const logprobs = t.rollout_logprobs.slice(turn.start, turn.end);
          // the server's sample with these ids and these logprobs, and the prompt this turn was sampled on
          const prompt = [...t.prompt_ids, ...t.response_ids.slice(0, turn.start)];
          const sample = server.samples.find(
            (s) =>
              s.modelPath.startsWith(`tinker://${modelId}/`) &&
              sameIds(s.promptIds, prompt) &&
              sameIds(s.tokens, ids) &&
              isDeepStrictEqual(s.logprobs, logprobs),
          );
          expect(sample, "the server sampled this turn").toBeDefined();
          expect(sample!.optimSteps).toBe(step - 1);
          expect(sample!.simWeightVersion).toBe(`${modelId}@${step - 1}`);
        }
      }
    }
  });

  it("writes one metrics line per step, and the loss the server computed from what it was sent", async () => {
    const metrics = readMetrics(out);
    expect(metrics.map((m) => m.step)).toEqual([1, 2, 3]);
    expect(metrics.map((m) => m.policy_version)).toEqual([0, 1, 2]);
    const tasks = await loadTasks(SAMPLE_HOTPOTQA_DATASET);
    for (const m of metrics) {
      const trajectories = await stepTrajectories(out, m.step);
      expect(m.task_ids).toEqual(tasks.slice((m.step - 1) * 2, m.step * 2).map((t) => t.id));
      expect(m.dataset_cursor).toBe(m.step * TASKS_PER_STEP);
      expect(m.datums).toBe(trajectories.length);
      expect(Object.values(m.skipped).reduce((a, b) => a + b, 0)).toBe(0);
      expect(m.reward_mean).toBeCloseTo(
        trajectories.reduce((a, t) => a + t.reward!, 0) / trajectories.length,
        9,
      );
      const sampled = trajectories.reduce((a, t) => a + t.loss_mask.filter((x) => x === 1).length, 0);
      expect(m.tokens.sampled).toBe(sampled);
      const weightedAdvantage = trajectories.reduce(
        (a, t) => a + t.advantage! * t.loss_mask.filter((x) => x === 1).length,
        0,
      );
      expect(m.forward_backward!["loss:sum"]).toBeCloseTo(-weightedAdvantage, 6);
      expect(m.forward_backward!["weights:sum"]).toBe(sampled);
      expect(m.optim_step!["optim_steps:count"]).toBe(m.step);
      expect(m.checkpoint_path).toBe(
        m.step >= 2 ? `tinker://${modelId}/weights/state-step-00000${m.step}` : null,
      );
    }
    expect(stdout).toMatch(/step 3\/3 {2}reward/);
    expect(stdout).toContain("completed at step 3 of 3");
  });

  it("leaves checkpoint.json naming the last saved state, the dataset cursor and the model", () => {
    const checkpoint = readCheckpointFile(out);
    expect(checkpoint).toMatchObject({
      step: 3,
      dataset_cursor: 3 * TASKS_PER_STEP,
      state_path: `tinker://${modelId}/weights/state-step-000003`,
      sampler_path: `tinker://${modelId}/sampler-v000002`,
      base_model: "Qwen/Qwen3-4B",
      lora_rank: 8,
    });
    expect(server.models.get(modelId)!.optimSteps).toBe(3);
  });
});

/** GRPO over one sampled-turn index: 0 for fewer than two samples or equal values (grpo.ts's rule). */
function grpoAtIndex(values: number[]): number[] {
  if (values.length < 2 || values.every((v) => v === values[0])) return values.map(() => 0);
  return grpo(values);
}

/**
 * The per-turn advantage of every response position of each trajectory, worked here from the records:
 * the trajectory's advantage + the GRPO-normalised return-to-go of its turn rewards at that sampled-turn
 * index within its group (services/train/src/README.md, "Per-turn advantages").
 */
function expectedPerTurn(trajectories: Trajectory[]): Map<Trajectory, number[]> {
  const returnsOf = (t: Trajectory) =>
    t.turns.flatMap((turn, i) =>
      turn.kind === "sampled" ? [t.turn_rewards!.slice(i).reduce((a, b) => a + b, 0)] : [],
    );
  const out = new Map<Trajectory, number[]>();
  for (const groupId of new Set(trajectories.map((t) => t.group_id))) {
    const group = trajectories.filter((t) => t.group_id === groupId);
    const returns = group.map(returnsOf);
    const terms = returns.map((g) => g.map(() => 0));
    for (let k = 0; k < Math.max(...returns.map((g) => g.length)); k++) {
      const reached = group.flatMap((_, i) => (returns[i]!.length > k ? [i] : []));
      const normalised = grpoAtIndex(reached.map((i) => returns[i]![k]!));
      reached.forEach((i, n) => {
        terms[i]![k] = normalised[n]!;
      });
    }
    group.forEach((t, i) => {
      const perPosition = t.loss_mask.map(() => 0);
      let k = 0;
      for (const turn of t.turns) {
        if (turn.kind !== "sampled") continue;
        perPosition.fill(t.advantage! + terms[i]![k]!, turn.start, turn.end);
        k += 1;
      }
      out.set(t, perPosition);
    });
  }
  return out;
}

describe("rlf train with per-turn rewards (ftrl_solve)", () => {
  it("puts each sampled turn's own advantage on its tokens in the datums, and reports turn rewards", async () => {
    const dir = tempDir("rlf-train-per-turn-");
    const out = join(dir, "run");
    // FTRL-style tasks: the final answer is the top search hit's title, and that title is the search
    // tool's sub-answer. The simulated policy searches (turn 1 solves the sub-answer: 2s/(n+1) = 1),
    // then answers the top title, or at this temperature often another one (turn 2: 1 or 0.5).
    const rows = readFileSync(SAMPLE_HOTPOTQA_TASKS, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .slice(0, TASKS_PER_STEP)
      .map((l) => JSON.parse(l) as { id: string; question: string });
    const lines = await Promise.all(
      rows.map(async (row) => {
        const hit = await gateway.client.callTool({
          name: "search__search",
          arguments_json: JSON.stringify({ query: row.question }),
        });
        const title = /Doc 1\(Title: "([^"]+)"\)/.exec(hit.content[0]?.text?.text ?? "")?.[1];
        expect(title, `a top hit for ${row.id}`).toBeDefined();
        return JSON.stringify({
          id: row.id,
          prompt: [{ role: "user", content: row.question }],
          ground_truth: title,
          extra_info: { unsolved_set: { search__search: [title] } },
        });
      }),
    );
    const tasks = join(dir, "tasks.jsonl");
    writeFileSync(tasks, lines.join("\n"));
    const config = writeConfig(dir, { steps: 1, save_every: 1 }, [
      `dataset: { path: ${tasks}, data_source: hotpotqa }`,
      "reward: { components: [{ type: exact_match, weight: 1 }, { type: ftrl_solve, weight: 0.5 }] }",
    ]);
    await run(process.execPath, [RLF, "train", "--config", config, "--out", out], {
      cwd: ROOT,
      env: ENV,
      timeout: 60_000,
    });
    const modelId = readCheckpointFile(out).model_id;
    const fb = server.calls.find(
      (c) => c.path === "/api/v1/forward_backward" && (c.body as { model_id: string }).model_id === modelId,
    );
    const datums = (fb!.body as { forward_backward_input: { data: Datum[] } }).forward_backward_input.data;
    const trajectories = await stepTrajectories(out, 1);
    expect(trajectories.every((t) => t.turn_rewards !== undefined)).toBe(true);
    expect(datums).toHaveLength(trajectories.length);

    const want = expectedPerTurn(trajectories);
    const unmatched = [...trajectories];
    let turnsApart = 0;
    for (const datum of datums) {
      const advantages = datum.loss_fn_inputs.advantages!.data;
      const response = (t: Trajectory) => advantages.slice(t.prompt_ids.length - 1);
      const k = unmatched.findIndex(
        (t) =>
          sameIds([...t.prompt_ids, ...t.response_ids].slice(1), datum.loss_fn_inputs.target_tokens.data) &&
          isDeepStrictEqual(
            [...t.rollout_logprobs],
            datum.loss_fn_inputs.logprobs?.data.slice(-t.rollout_logprobs.length),
          ),
      );
      expect(k, "a trajectory behind every datum").toBeGreaterThanOrEqual(0);
      const t = unmatched.splice(k, 1)[0]!;
      const got = response(t);
      const expected = want.get(t)!;
      expect(got).toHaveLength(expected.length);
      for (const [i, a] of got.entries()) expect(a).toBeCloseTo(expected[i]!, 9);
      // per-turn credit reached the tokens: some sampled token's advantage is not the trajectory's
      if (got.some((a, i) => t.loss_mask[i] === 1 && Math.abs(a - t.advantage!) > 1e-6)) turnsApart += 1;
    }
    expect(turnsApart).toBeGreaterThan(0);

    const [metrics] = readMetrics(out);
    expect(metrics!.credit_assignment).toBe("per_turn");
    const sampledTurnRewards = trajectories.map((t) =>
      t.turns.flatMap((turn, i) => (turn.kind === "sampled" ? [t.turn_rewards![i]!] : [])),
    );
    const deepest = Math.max(...sampledTurnRewards.map((r) => r.length));
    expect(metrics!.turn_reward_mean).toEqual(
      Array.from({ length: deepest }, (_, k) => {
        const reached = sampledTurnRewards.filter((r) => r.length > k).map((r) => r[k]!);
        return expect.closeTo(reached.reduce((a, b) => a + b, 0) / reached.length, 9);
      }),
    );
    // the server's loss is −Σ weight · advantage over what it was sent
    const sent = datums.reduce(
      (sum, d) =>
        sum +
        d.loss_fn_inputs.weights.data.reduce((a, w, i) => a + w * d.loss_fn_inputs.advantages!.data[i]!, 0),
      0,
    );
    expect(metrics!.forward_backward!["loss:sum"]).toBeCloseTo(-sent, 4);
    expect(server.violations).toEqual([]);
  }, 90_000);
});

describe("rlf train with tokenizer.chat_template", () => {
  it("samples from prompts rendered by the configured template, not the tokenizer's own", async () => {
    const dir = tempDir("rlf-train-template-");
    const out = join(dir, "run");
    const template =
      "{% for m in messages %}[[{{ m.role }}]] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[[assistant]] {% endif %}";
    writeFileSync(join(dir, "template.jinja"), template);
    const config = writeConfig(dir, { steps: 1, save_every: 1 }, [
      `tokenizer: { path: qwen3, chat_template: ${join(dir, "template.jinja")} }`,
    ]);
    await run(process.execPath, [RLF, "train", "--config", config, "--out", out], {
      cwd: ROOT,
      env: ENV,
      timeout: 60_000,
    });
    const modelId = readCheckpointFile(out).model_id;
    const tokenizer = await qwen3Tokenizer();
    const prompts = server.samples
      .filter((s) => s.modelPath.startsWith(`tinker://${modelId}/`))
      .map((s) => tokenizer.decode(s.promptIds));
    expect(prompts.length).toBeGreaterThan(0);
    for (const text of prompts) {
      expect(text.startsWith("[[")).toBe(true);
      expect(text).toContain("[[user]] ");
      expect(text).not.toContain("<|im_start|>");
    }
  });
});

describe("rlf train resuming", () => {
  const out = join(tempDir("rlf-train-resume-"), "run");
  let config = "";

  beforeAll(() => {
    config = writeConfig(tempDir("rlf-train-resume-cfg-"), { steps: 4, save_every: 2 });
  });

  /** Holds the run at the sampler save of step `step` (its model has step − 1 optimizer steps). */
  function holdAtStep(step: number) {
    return server.gate(
      (path, body) =>
        path === "/api/v1/save_weights_for_sampler" &&
        server.models.get(String(body.model_id))?.optimSteps === step - 1 &&
        (body.path as string) === `sampler-v${String(step - 1).padStart(6, "0")}` &&
        !knownModels.has(String(body.model_id)),
    );
  }
  const knownModels = new Set<string>();

  it("resumes a run killed with SIGKILL from its last checkpoint, with no step repeated", async () => {
    for (const id of server.models.keys()) knownModels.add(id);
    const gate = holdAtStep(3);
    const first = trainChild(config, out);
    await Promise.race([gate.reached, first.exited.then(() => Promise.reject(new Error(first.output())))]);
    expect(readCheckpointFile(out).step).toBe(2);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe(null);
    gate.release();
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2]);
    const killed = readCheckpointFile(out);

    // second run: resumes after step 2, and is stopped cleanly (SIGTERM) at the start of step 4
    for (const id of server.models.keys()) knownModels.add(id);
    const gate4 = holdAtStep(4);
    const second = trainChild(config, out);
    await Promise.race([gate4.reached, second.exited.then(() => Promise.reject(new Error(second.output())))]);
    const resumedModel = [...server.models.values()].find((m) => !knownModels.has(m.modelId))!;
    expect(resumedModel.loadedFrom).toBe(killed.state_path);
    second.child.kill("SIGTERM"); // while step 4's sampler save waits at the gate
    gate4.release();
    expect(await second.exited, second.output()).toBe(130);
    expect(second.output()).toContain("stopped after step 3");
    // step 3 was not due (save_every 2): the clean stop saved it
    const stopped = readCheckpointFile(out);
    expect(stopped).toMatchObject({
      step: 3,
      dataset_cursor: 3 * TASKS_PER_STEP,
      model_id: resumedModel.modelId,
    });
    expect(stopped.state_path).toBe(`tinker://${resumedModel.modelId}/weights/state-step-000003`);

    // the resumed model: create_model, then load_weights first (seq_id 1), then step 3 as usual
    const calls = modelCalls(resumedModel.modelId);
    expect(shape(calls).slice(0, 6)).toEqual([
      "create_model",
      "load_weights",
      "save_weights_for_sampler",
      expect.stringMatching(/^asample×\d+$/),
      "forward_backward",
      "optim_step",
    ]);
    expect(calls[1]!.body).toMatchObject({ path: killed.state_path, optimizer: true, seq_id: 1 });

    // third run: finishes step 4
    for (const id of server.models.keys()) knownModels.add(id);
    const third = trainChild(config, out);
    expect(await third.exited, third.output()).toBe(0);
    expect(third.output()).toContain("resuming after step 3");
    expect(server.violations).toEqual([]);

    const metrics = readMetrics(out);
    expect(metrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(metrics.map((m) => m.policy_version)).toEqual([0, 1, 2, 3]);
    expect(metrics.map((m) => m.dataset_cursor)).toEqual([2, 4, 6, 8]);
    const tasks = await loadTasks(SAMPLE_HOTPOTQA_DATASET);
    expect(metrics.flatMap((m) => m.task_ids)).toEqual(tasks.slice(0, 8).map((t) => t.id));
    expect(readdirSync(join(out, "trajectories")).sort()).toEqual(
      [1, 2, 3, 4].map((s) => `step-00000${s}.jsonl`),
    );
    for (const step of [1, 2, 3, 4]) {
      for (const t of await stepTrajectories(out, step)) expect(t.policy_version).toBe(step - 1);
    }
    // the optimizer steps continue across the resumes: 2 restored + step 3, then 3 restored + step 4
    const final = readCheckpointFile(out);
    expect(final.step).toBe(4);
    expect(server.models.get(final.model_id)!.optimSteps).toBe(4);
    expect(server.models.get(final.model_id)!.loadedFrom).toBe(stopped.state_path);
    expect(existsSync(join(out, "checkpoint.json"))).toBe(true);
  }, 90_000);
});

describe("the contract server", () => {
  it("refuses a body off the pinned schema with a 422 naming the field, and lists it as a violation", async () => {
    const before = server.violations.length;
    const res = await fetch(`${server.url}/api/v1/optim_step`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY },
      body: JSON.stringify({ model_id: "m", adam_params: { learning_rate: 1e-4, beta1: 0.9 } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
    expect(body.detail.map((d) => d.loc.join("."))).toEqual(
      expect.arrayContaining([
        "body.adam_params.beta2",
        "body.adam_params.eps",
        "body.adam_params.weight_decay",
      ]),
    );
    expect(server.violations.slice(before).map((v) => v.path)).toEqual(["/api/v1/optim_step"]);
    server.violations.splice(before); // this one was on purpose
  });
});
