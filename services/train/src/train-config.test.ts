// The train config: the example in examples/ parses to what it says, and mistakes get one message that
// names each wrong key.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SAMPLE_HOTPOTQA_TASKS } from "@rlfactory/rollout";
import { describe, expect, it } from "vitest";
import {
  loadTrainConfig,
  parseTrainConfig,
  samplingTemperatureWarning,
  TrainConfigError,
} from "./train-config.ts";

const EXAMPLE = fileURLToPath(new URL("../../../examples/train-tinker.yaml", import.meta.url));

const minimal = {
  tinker: { base_url: "http://127.0.0.1:8000", base_model: "Qwen/Qwen3-4B" },
  gateway: { address: "127.0.0.1:50051" },
  dataset: { path: SAMPLE_HOTPOTQA_TASKS },
  reward: { components: [{ type: "exact_match", weight: 1 }] },
  train: { steps: 2, tasks_per_step: 2 },
};

function message(raw: unknown): string {
  try {
    parseTrainConfig(raw, "/cfg");
  } catch (e) {
    expect(e).toBeInstanceOf(TrainConfigError);
    return (e as Error).message;
  }
  throw new Error("expected the config to be refused");
}

describe("train config", () => {
  it("parses examples/train-tinker.yaml: its sections, defaults and paths", async () => {
    const c = await loadTrainConfig(EXAMPLE);
    expect(c.tinker).toMatchObject({
      base_url: "http://127.0.0.1:8000",
      api_key_env: "TINKER_API_KEY",
      base_model: "Qwen/Qwen3-4B",
      lora_rank: 32,
      loss_fn: "importance_sampling",
      poll_interval_ms: 250,
      heartbeat_ms: 10_000,
    });
    expect(c.train).toEqual({
      steps: 20,
      tasks_per_step: 8,
      learning_rate: 0.00004,
      adam: { beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0 },
      save_every: 5,
      out: fileURLToPath(new URL("../../../runs/train-hotpotqa", import.meta.url)),
      seed: 1,
      save_trajectories: true,
      credit_assignment: "per_turn",
    });
    expect(c.rollout.dataset.path).toBe(SAMPLE_HOTPOTQA_TASKS);
    expect(c.rollout.rollout.group_size).toBe(8);
    expect(c.rollout.seed).toBe(1); // train.seed seeds the rollouts
    expect(c.rollout.inference.urls).toEqual(["http://127.0.0.1:8000"]); // a placeholder: never sampled from
  });

  it("a file that cannot be read, parsed or validated is refused naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "train-config-"));
    await expect(loadTrainConfig(join(dir, "none.yaml"))).rejects.toThrow(
      /cannot read train config .*none\.yaml/,
    );
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "train: [\n");
    await expect(loadTrainConfig(broken)).rejects.toThrow(`cannot parse train config ${broken}`);
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, JSON.stringify({ ...minimal, train: { steps: 0, tasks_per_step: 2 } }));
    await expect(loadTrainConfig(bad)).rejects.toThrow(`invalid train config ${bad}`);
    await expect(loadTrainConfig(bad)).rejects.toThrow(/→ at train\.steps/);
  });

  it("fills defaults for a minimal config", () => {
    const c = parseTrainConfig(minimal, "/cfg");
    expect(c.train).toMatchObject({ learning_rate: 4e-5, save_every: 10, save_trajectories: true });
    expect(c.train.adam).toEqual({ beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0 });
    expect(c.tinker).toMatchObject({ lora_rank: 32, retries: 3, timeout_ms: 120_000 });
  });

  it("chooses the credit assignment: per_turn by default, outcome on request, anything else refused", () => {
    expect(parseTrainConfig(minimal, "/cfg").train.credit_assignment).toBe("per_turn");
    const outcome = { ...minimal, train: { ...minimal.train, credit_assignment: "outcome" } };
    expect(parseTrainConfig(outcome, "/cfg").train.credit_assignment).toBe("outcome");
    const text = message({ ...minimal, train: { ...minimal.train, credit_assignment: "per-turn" } });
    expect(text).toContain("credit_assignment must be outcome or per_turn");
    expect(text).toContain("→ at train.credit_assignment");
  });

  it("names every problem at once, with its section", () => {
    const text = message({
      ...minimal,
      inference: { engine: "vllm", url: "http://x" },
      tinker: { base_url: "not a url", loss_fn: "ppo", loss_fn_config: { beta: 1 } },
      train: { steps: 0, tasks_per_step: 2 },
      rollout: { sampling: { max_tokens: 64, min_p: 0.1 } },
    });
    expect(text).toContain("✖ inference: not a train config key (training samples through the Tinker API");
    expect(text).toContain("→ at tinker.base_url");
    expect(text).toContain("give base_model (or model_id)");
    expect(text).toContain("loss_fn ppo takes clip_low_threshold, clip_high_threshold, value_clip");
    expect(text).toContain("→ at train.steps");
    expect(text).toContain("no min_p or repetition_penalty");
  });

  it("requires the tinker and train sections and a dataset", () => {
    const { tinker: _t, train: _r, dataset: _d, ...rest } = minimal;
    const text = message(rest);
    expect(text).toContain("→ at tinker");
    expect(text).toContain("→ at train");
    expect(text).toContain("dataset: required");
  });

  it("warns when the rollouts sample at a temperature other than 1 (Tinker scores at temperature 1)", () => {
    expect(samplingTemperatureWarning(parseTrainConfig(minimal, "/cfg"))).toBeNull();
    const tempered = parseTrainConfig(
      { ...minimal, rollout: { sampling: { temperature: 0.7, top_p: 1, max_tokens: 64 } } },
      "/cfg",
    );
    expect(samplingTemperatureWarning(tempered)).toMatch(/temperature is 0\.7: .*temperature 1/);
  });
});
