// The pinned request schemas refuse what SkyRL's server (or the hosted SDK's strict models) would
// refuse, with a message that names the field; and accept the bodies the client builds.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  forwardBackwardRequestSchema,
  loadWeightsRequestSchema,
  sampleRequestSchema,
  saveWeightsForSamplerRequestSchema,
  saveWeightsRequestSchema,
  tensor,
} from "./tinker-schema.ts";

const datum = {
  model_input: { chunks: [{ type: "encoded_text", tokens: [1, 2, 3] }] },
  loss_fn_inputs: {
    target_tokens: tensor([2, 3, 4], "int64"),
    weights: tensor([0, 1, 1], "float32"),
    logprobs: tensor([0, -0.5, -0.1], "float32"),
    advantages: tensor([0, 1, 1], "float32"),
  },
};
const fb = {
  model_id: "m",
  forward_backward_input: { data: [datum], loss_fn: "importance_sampling" },
  seq_id: 3,
};
const sample = {
  num_samples: 1,
  prompt: { chunks: [{ type: "encoded_text", tokens: [1, 2] }] },
  sampling_params: { max_tokens: 8, temperature: 1, top_k: -1, top_p: 1, stop: [151645] },
  model_path: "tinker://model_1/sampler-v000000",
  type: "sample",
};

function problems(schema: z.ZodType, body: unknown): string {
  const r = schema.safeParse(body);
  return r.success ? "" : z.prettifyError(r.error);
}

describe("the pinned Tinker request schemas", () => {
  it("accept the bodies rlf train sends", () => {
    expect(problems(forwardBackwardRequestSchema, fb)).toBe("");
    expect(problems(sampleRequestSchema, sample)).toBe("");
    expect(
      problems(saveWeightsForSamplerRequestSchema, {
        model_id: "m",
        path: "sampler-v000001",
        type: "save_weights_for_sampler",
      }),
    ).toBe("");
    expect(
      problems(loadWeightsRequestSchema, {
        model_id: "m",
        path: "tinker://model_1/weights/state-step-000002",
        optimizer: true,
        seq_id: 1,
        type: "load_weights",
      }),
    ).toBe("");
  });

  it("refuse a datum whose tensors do not match its input, or an input a loss needs is missing", () => {
    const short = {
      ...datum,
      loss_fn_inputs: { ...datum.loss_fn_inputs, weights: tensor([1, 1], "float32") },
    };
    expect(
      problems(forwardBackwardRequestSchema, {
        ...fb,
        forward_backward_input: { ...fb.forward_backward_input, data: [short] },
      }),
    ).toMatch(/weights has 2 values but model_input has 3 tokens/);
    const { advantages: _, ...noAdvantages } = datum.loss_fn_inputs;
    expect(
      problems(forwardBackwardRequestSchema, {
        ...fb,
        forward_backward_input: {
          ...fb.forward_backward_input,
          data: [{ ...datum, loss_fn_inputs: noAdvantages }],
        },
      }),
    ).toMatch(/loss_fn importance_sampling needs advantages/);
    const floatTargets = {
      ...datum,
      loss_fn_inputs: { ...datum.loss_fn_inputs, target_tokens: tensor([2, 3, 4], "float32") },
    };
    expect(
      problems(forwardBackwardRequestSchema, {
        ...fb,
        forward_backward_input: { ...fb.forward_backward_input, data: [floatTargets] },
      }),
    ).toMatch(/target_tokens must be int64/);
  });

  it("refuse loss_fn_config keys the loss does not take (SkyRL's allow-list)", () => {
    const body = {
      ...fb,
      forward_backward_input: { ...fb.forward_backward_input, loss_fn_config: { clip_low_threshold: 0.2 } },
    };
    expect(problems(forwardBackwardRequestSchema, body)).toMatch(
      /importance_sampling does not accept clip_low_threshold/,
    );
  });

  it("refuse sampling with both or neither of base_model and model_path, mixed stops, or no max_tokens", () => {
    expect(problems(sampleRequestSchema, { ...sample, base_model: "Qwen/Qwen3-4B" })).toMatch(
      /exactly one of/,
    );
    expect(problems(sampleRequestSchema, { ...sample, model_path: undefined })).toMatch(/exactly one of/);
    expect(
      problems(sampleRequestSchema, {
        ...sample,
        sampling_params: { ...sample.sampling_params, stop: ["x", 5] },
      }),
    ).toMatch(/sampling_params\.stop/);
    const { max_tokens: _, ...noMax } = sample.sampling_params;
    expect(problems(sampleRequestSchema, { ...sample, sampling_params: noMax })).toMatch(/max_tokens/);
  });

  it("refuse checkpoint names outside SkyRL's ID_PATTERN and load paths that are not training states", () => {
    expect(problems(saveWeightsRequestSchema, { model_id: "m", path: "../escape" })).toMatch(
      /only letters, digits/,
    );
    expect(
      problems(loadWeightsRequestSchema, {
        model_id: "m",
        path: "tinker://model_1/sampler-v000001",
        optimizer: true,
      }),
    ).toMatch(/tinker:\/\/MODEL_ID\/weights\/CHECKPOINT/);
  });

  it("refuse fields neither server declares (a typo fails the contract)", () => {
    expect(problems(sampleRequestSchema, { ...sample, num_sample: 2 })).toMatch(
      /Unrecognized key: "num_sample"/,
    );
  });
});
