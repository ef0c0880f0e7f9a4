// Which logprobs a trajectory holds: the simulated inference server answers with raw (temperature 1,
// vLLM's default) or processed (after temperature) logprobs, and each trajectory records the kind the
// config declares (`inference.logprobs_mode`, else the engine's default) and the sampling temperature,
// in the JSON record, through the gRPC codec and in Parquet.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { groupFromProto, groupToProto } from "@rlfactory/clients";
import type { Task, Trajectory } from "@rlfactory/contracts";
import { rawFromProcessed, type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCaller, ToolInvoker } from "../gateway-tools.ts";
import { readTrajectoriesParquet, writeTrajectoriesParquet } from "../output/parquet.ts";
import { loadRolloutProto } from "../serve/proto.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { createRolloutEngine } from "./create-rollout-engine.ts";
import { parseRolloutConfig, type RolloutConfigInput } from "./rollout-config.ts";
import type { RolloutOptions } from "./rollout-engine.ts";

const TASK: Task = {
  id: "t1",
  data_source: "unit",
  prompt: [{ role: "user", content: "Say something." }],
  ground_truth: "x",
  extra_info: {},
  tools: [],
};

const noTools: ToolCaller & ToolInvoker = {
  callTools: () => Promise.reject(new Error("no tools in this test")),
  call: () => Promise.reject(new Error("no tools in this test")),
};

let tokenizer: ModelTokenizer;
let raw: SimulatedLlm;
let processed: SimulatedLlm;
let dir: string;

beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
  [raw, processed] = await Promise.all([
    startSimulatedLlm({ policy: "ramble", seed: 1, tokenizer, logprobsMode: "raw" }),
    startSimulatedLlm({ policy: "ramble", seed: 1, tokenizer, logprobsMode: "processed" }),
  ]);
  dir = await mkdtemp(join(tmpdir(), "rlf-logprobs-kind-"));
});

afterAll(async () => {
  await Promise.all([raw?.close(), processed?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function rollOut(
  llm: SimulatedLlm,
  inference: Partial<RolloutConfigInput["inference"]>,
  temperature: number,
  options: RolloutOptions = {},
): Promise<Trajectory[]> {
  const config = parseRolloutConfig({
    inference: { engine: "vllm", urls: [llm.url], ...inference },
    gateway: { address: "127.0.0.1:1" },
    rollout: { group_size: 2, max_turns: 1, sampling: { temperature, top_p: 1, max_tokens: 24 } },
    reward: { components: [{ type: "exact_match", weight: 1 }] },
    seed: 7,
  });
  const engine = await createRolloutEngine(config, {
    tokenizer,
    tools: [],
    toolCaller: noTools,
    toolInvoker: noTools,
    warn: () => {},
  });
  try {
    const out: Trajectory[] = [];
    for await (const group of engine.rollout([TASK], options)) out.push(...group.trajectories);
    return out.sort((a, b) => a.sample_index - b.sample_index);
  } finally {
    await engine.close();
  }
}

const sampled = (t: Trajectory) => t.rollout_logprobs.filter((_, i) => t.loss_mask[i] === 1);

describe("logprobs kind on trajectories", () => {
  it("records raw for vLLM by default and processed when the config declares it, with the temperature", async () => {
    const fromRaw = await rollOut(raw, {}, 0.7);
    const fromProcessed = await rollOut(processed, { logprobs_mode: "processed" }, 0.7);
    expect(fromRaw.map((t) => [t.logprobs_kind, t.sampling_temperature])).toEqual([
      ["raw", 0.7],
      ["raw", 0.7],
    ]);
    expect(fromProcessed.map((t) => [t.logprobs_kind, t.sampling_temperature])).toEqual([
      ["processed", 0.7],
      ["processed", 0.7],
    ]);
    // same seeds, same sampled ids; the servers differ only in which logprobs they return
    for (const [i, r] of fromRaw.entries()) {
      const p = fromProcessed[i]!;
      expect(r.response_ids).toEqual(p.response_ids);
      expect(sampled(r).length).toBeGreaterThan(0);
      expect(sampled(r)).toEqual(sampled(p).map((lp) => rawFromProcessed(lp, 0.7)));
      expect(sampled(r)).not.toEqual(sampled(p));
    }
  });

  it("records SGLang's default as processed, and raw where the config says its server returns raw", async () => {
    const byDefault = await rollOut(processed, { engine: "sglang" }, 0.7);
    const declared = await rollOut(raw, { engine: "sglang", logprobs_mode: "raw" }, 0.7);
    expect(byDefault.map((t) => t.logprobs_kind)).toEqual(["processed", "processed"]);
    expect(declared.map((t) => t.logprobs_kind)).toEqual(["raw", "raw"]);
  });

  it("records what a request's own servers return when the request says (the config's servers say otherwise)", async () => {
    const ts = await rollOut(raw, {}, 0.7, {
      inference: { urls: [processed.url], logprobsMode: "processed" },
    });
    expect(ts.map((t) => t.logprobs_kind)).toEqual(["processed", "processed"]);
    expect(processed.requests.length).toBeGreaterThan(0);
  });

  it("serves equal raw and processed logprobs at temperature 1", async () => {
    const [r, p] = await Promise.all([rollOut(raw, {}, 1), rollOut(processed, {}, 1)]);
    expect(r.map(sampled)).toEqual(p.map(sampled));
    expect(r.map((t) => t.sampling_temperature)).toEqual([1, 1]);
  });

  it("keeps the kind and temperature through the gRPC codec and Parquet", async () => {
    const ts = await rollOut(processed, { logprobs_mode: "processed" }, 0.7);
    const method = loadRolloutProto().grpc.rlfactory.v1.RolloutService.service.Rollout;
    const stats = { count: 2, scored: 2, mean: null, std: null, min: null, max: null, all_equal: true };
    const wire = groupToProto({ taskId: "t1", groupId: "g", trajectories: ts, stats });
    const decoded = groupFromProto(method.responseDeserialize(method.responseSerialize(wire))).trajectories;
    expect(decoded.map((t) => [t.logprobs_kind, t.sampling_temperature])).toEqual([
      ["processed", 0.7],
      ["processed", 0.7],
    ]);
    const path = join(dir, "t.parquet");
    await writeTrajectoriesParquet(path, ts);
    const back = await readTrajectoriesParquet(path);
    expect(back.map((t) => [t.logprobs_kind, t.sampling_temperature])).toEqual([
      ["processed", 0.7],
      ["processed", 0.7],
    ]);
  });

  it("refuses a logprobs_mode that is neither raw nor processed", () => {
    expect(() =>
      parseRolloutConfig({
        inference: { engine: "vllm", url: "http://127.0.0.1:1", logprobs_mode: "processed_logits" },
        gateway: { address: "127.0.0.1:1" },
        reward: { components: [{ type: "exact_match", weight: 1 }] },
      }),
    ).toThrow(/logprobs_mode/);
  });
});
