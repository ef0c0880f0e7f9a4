// The Tinker training API's wire shapes, pinned as zod schemas: every request body `rlf train` sends
// and every response field it reads. The contract test server (test/support/src/tinker-contract-server.ts)
// validates each request against these same request schemas.
//
// Sources, read on 2026-08 (shapes re-declared here, no code copied):
//   SkyRL's Tinker-compatible server — NovaSky-AI/SkyRL @ a9564572eb8e91076be43c1bd5e4615e3de17265
//     skyrl/tinker/api.py    routes and request/response pydantic models (CreateSessionRequest,
//                            CreateModelRequest, LoRAConfig, ModelInput, EncodedTextChunk, TensorData,
//                            Datum, ForwardBackwardInput, ForwardBackwardRequest, AdamParams,
//                            OptimStepRequest, SaveWeightsForSamplerRequest, SaveWeightsRequest,
//                            LoadWeightsRequest, SamplingParams, SampleRequest, FutureResponse,
//                            RetrieveFutureRequest; ID_PATTERN; retrieve_future's 408/400/404/500)
//     skyrl/tinker/types.py  future results (CreateModelOutput, ForwardBackwardOutput, OptimStepOutput,
//                            SaveWeightsForSamplerOutput, SaveWeightsOutput, LoadWeightsOutput,
//                            SampleOutput/GeneratedSequence, ErrorResponse), TinkerPath
//     skyrl/tinker/engine.py result paths: save_weights → tinker://MODEL/weights/NAME,
//                            save_weights_for_sampler → tinker://MODEL/NAME
//   Hosted Tinker's Python SDK — thinking-machines-lab/tinker @ d595dc2ba62a1494aa0f452fe1d0dbb7b321b870
//     src/tinker/types/*.py  the same requests with a few more fields (CreateModelRequest.model_seq_id,
//                            TensorData.dtype/shape, AdamParams.grad_clip_norm, `type` tags), futures
//                            (UntypedAPIFuture, TryAgainResponse, RequestFailedResponse)
//     src/tinker/lib/_auth_token_provider.py   the API key travels as `X-API-Key`
//     src/tinker/lib/api_future_impl.py        retrieve_future: 408 or {"type":"try_again"} = pending
//
// Requests are strict objects holding the union of both servers' fields: SkyRL's pydantic models
// ignore fields they do not declare, the SDK's StrictBase models forbid undeclared ones, so anything we
// send must be declared by at least one of them, and a typo fails the contract test. Responses are
// loose: we read what we need and let servers add fields.
import { z } from "zod";

// ---------------------------------------------------------------------------------------------------
// Endpoints (all under the server's base URL; every one is POST except healthz)

export const TINKER_PATHS = {
  healthz: "/api/v1/healthz",
  createSession: "/api/v1/create_session",
  sessionHeartbeat: "/api/v1/session_heartbeat",
  createModel: "/api/v1/create_model",
  getInfo: "/api/v1/get_info",
  forwardBackward: "/api/v1/forward_backward",
  optimStep: "/api/v1/optim_step",
  saveWeightsForSampler: "/api/v1/save_weights_for_sampler",
  saveWeights: "/api/v1/save_weights",
  loadWeights: "/api/v1/load_weights",
  asample: "/api/v1/asample",
  retrieveFuture: "/api/v1/retrieve_future",
} as const;
export type TinkerEndpoint = keyof typeof TINKER_PATHS;

/** The header the API key travels in (SDK `ApiKeyAuthProvider`; SkyRL does not check it). */
export const TINKER_API_KEY_HEADER = "x-api-key";

// ---------------------------------------------------------------------------------------------------
// Shared pieces

const tokenId = z.number().int().nonnegative();
/** SkyRL `ID_PATTERN` / `ID_MAX_LENGTH`: checkpoint names (`path` of save_weights[_for_sampler]). */
export const checkpointNameSchema = z
  .string()
  .max(255)
  .regex(/^[a-zA-Z0-9_-]+$/, "checkpoint names may hold only letters, digits, '_' and '-'");
/** `tinker://MODEL/weights/NAME`: a training-state checkpoint (load_weights accepts only this kind). */
export const weightsPathSchema = z
  .string()
  .regex(/^tinker:\/\/[^/]+\/weights\/[^/]+$/, "expected tinker://MODEL_ID/weights/CHECKPOINT");
/** `tinker://MODEL/NAME` or `tinker://MODEL/sampler_weights/NAME`: weights to sample from. */
export const samplerPathSchema = z
  .string()
  .regex(
    /^tinker:\/\/[^/]+\/(sampler_weights\/)?[^/]+$/,
    "expected tinker://MODEL_ID/CHECKPOINT or tinker://MODEL_ID/sampler_weights/CHECKPOINT",
  );

/** SDK `TensorDtype`. */
export const tensorDtypeSchema = z.enum(["int64", "float32"]);

/** SkyRL `TensorData {data}`; the SDK adds `dtype` (required there) and `shape`. We send all three, 1-D. */
export const tensorDataSchema = z
  .strictObject({
    data: z.array(z.number().finite()),
    dtype: tensorDtypeSchema,
    shape: z.array(z.number().int().nonnegative()).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.dtype === "int64" && !t.data.every(Number.isInteger)) {
      ctx.addIssue({ code: "custom", path: ["data"], message: "int64 tensor data must be integers" });
    }
    if (t.shape !== undefined && t.shape.reduce((a, b) => a * b, 1) !== t.data.length) {
      ctx.addIssue({
        code: "custom",
        path: ["shape"],
        message: `shape ${JSON.stringify(t.shape)} does not hold ${t.data.length} values`,
      });
    }
  });
export type TensorData = z.infer<typeof tensorDataSchema>;

/** `EncodedTextChunk` (image chunks exist on both servers; we never send them). */
export const encodedTextChunkSchema = z.strictObject({
  type: z.literal("encoded_text"),
  tokens: z.array(tokenId),
});

export const modelInputSchema = z.strictObject({ chunks: z.array(encodedTextChunkSchema) });
export type ModelInput = z.infer<typeof modelInputSchema>;

/** The loss functions SkyRL's `ForwardBackwardInput.loss_fn` accepts. */
export const lossFnSchema = z.enum([
  "cross_entropy",
  "importance_sampling",
  "ppo",
  "gspo",
  "cispo",
  "ppo_critic",
  "dppo",
]);
export type LossFn = z.infer<typeof lossFnSchema>;

/** SkyRL `ForwardBackwardInput._ALLOWED_KEYS_BY_LOSS_FN`. */
export const LOSS_FN_CONFIG_KEYS: Readonly<Record<LossFn, readonly string[]>> = {
  cross_entropy: [],
  importance_sampling: [],
  ppo: ["clip_low_threshold", "clip_high_threshold", "value_clip"],
  gspo: ["clip_low_threshold", "clip_high_threshold"],
  cispo: ["clip_low_threshold", "clip_high_threshold"],
  ppo_critic: ["value_clip"],
  dppo: ["delta_low", "delta_high"],
};

/** The policy-gradient losses read these inputs besides target_tokens and weights. */
const POLICY_LOSS_INPUTS: Partial<Record<LossFn, readonly string[]>> = {
  importance_sampling: ["logprobs", "advantages"],
  ppo: ["logprobs", "advantages"],
  gspo: ["logprobs", "advantages"],
  cispo: ["logprobs", "advantages"],
  dppo: ["logprobs", "advantages"],
};

/**
 * One training example. Position i of `model_input` predicts `target_tokens[i]`; `weights` is the
 * per-token loss weight, `logprobs` the sampler's logprob of the target (importance sampling), and
 * `advantages` the per-token advantage. All four are 1-D and as long as the input.
 */
export const datumSchema = z
  .strictObject({
    model_input: modelInputSchema,
    loss_fn_inputs: z.strictObject({
      target_tokens: tensorDataSchema,
      weights: tensorDataSchema,
      logprobs: tensorDataSchema.optional(),
      advantages: tensorDataSchema.optional(),
    }),
  })
  .superRefine((d, ctx) => {
    const n = d.model_input.chunks.reduce((a, c) => a + c.tokens.length, 0);
    if (n === 0) ctx.addIssue({ code: "custom", path: ["model_input"], message: "model_input is empty" });
    const inputs = d.loss_fn_inputs;
    for (const [key, t] of Object.entries(inputs)) {
      if (t === undefined) continue;
      if (t.data.length !== n) {
        ctx.addIssue({
          code: "custom",
          path: ["loss_fn_inputs", key, "data"],
          message: `${key} has ${t.data.length} values but model_input has ${n} tokens`,
        });
      }
      const dtype = key === "target_tokens" ? "int64" : "float32";
      if (t.dtype !== dtype) {
        ctx.addIssue({
          code: "custom",
          path: ["loss_fn_inputs", key, "dtype"],
          message: `${key} must be ${dtype}`,
        });
      }
    }
    if (!inputs.target_tokens.data.every((x) => Number.isInteger(x) && x >= 0)) {
      ctx.addIssue({
        code: "custom",
        path: ["loss_fn_inputs", "target_tokens"],
        message: "target_tokens must be token ids",
      });
    }
    if (!inputs.weights.data.every((w) => w >= 0)) {
      ctx.addIssue({ code: "custom", path: ["loss_fn_inputs", "weights"], message: "weights must be ≥ 0" });
    }
    if (inputs.logprobs && !inputs.logprobs.data.every((lp) => lp <= 0)) {
      ctx.addIssue({ code: "custom", path: ["loss_fn_inputs", "logprobs"], message: "logprobs must be ≤ 0" });
    }
  });
export type Datum = z.infer<typeof datumSchema>;

// ---------------------------------------------------------------------------------------------------
// Requests

/** POST /api/v1/create_session (SkyRL `CreateSessionRequest`; SDK adds `project_id`). */
export const createSessionRequestSchema = z.strictObject({
  tags: z.array(z.string()),
  user_metadata: z.record(z.string(), z.unknown()).nullable(),
  sdk_version: z.string().min(1),
  project_id: z.string().nullish(),
  type: z.literal("create_session"),
});
export type CreateSessionRequest = z.infer<typeof createSessionRequestSchema>;

/** POST /api/v1/session_heartbeat. */
export const sessionHeartbeatRequestSchema = z.strictObject({
  session_id: z.string().min(1),
  type: z.literal("session_heartbeat"),
});

/** `LoRAConfig`: SkyRL reads rank and seed; the SDK adds which layers get adapters. */
export const loraConfigSchema = z.strictObject({
  rank: z.number().int().positive(),
  seed: z.number().int().nullish(),
  train_attn: z.boolean().optional(),
  train_mlp: z.boolean().optional(),
  train_unembed: z.boolean().optional(),
});

/** POST /api/v1/create_model (SkyRL requires lora_config; the SDK requires model_seq_id). */
export const createModelRequestSchema = z.strictObject({
  session_id: z.string().min(1),
  model_seq_id: z.number().int().nonnegative(),
  base_model: z.string().min(1),
  lora_config: loraConfigSchema,
  model_role: z.string().optional(),
  user_metadata: z.record(z.string(), z.unknown()).nullish(),
  type: z.literal("create_model"),
});
export type CreateModelRequest = z.infer<typeof createModelRequestSchema>;

/** POST /api/v1/get_info. */
export const getInfoRequestSchema = z.strictObject({
  model_id: z.string().min(1),
  type: z.literal("get_info").optional(),
});

/** `seq_id`: the SDK numbers a model's requests 1, 2, … ; SkyRL dedupes a retried (model_id, seq_id). */
const seqId = z.number().int().positive().optional();

/** POST /api/v1/forward_backward (JSON body; SDK ≥ 0.25 may send protobuf, SkyRL accepts both). */
export const forwardBackwardRequestSchema = z
  .strictObject({
    model_id: z.string().min(1),
    forward_backward_input: z.strictObject({
      data: z.array(datumSchema).min(1),
      loss_fn: lossFnSchema,
      loss_fn_config: z.record(z.string(), z.number()).nullish(),
    }),
    seq_id: seqId,
  })
  .superRefine((r, ctx) => {
    const input = r.forward_backward_input;
    const allowed = LOSS_FN_CONFIG_KEYS[input.loss_fn];
    for (const key of Object.keys(input.loss_fn_config ?? {})) {
      if (!allowed.includes(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["forward_backward_input", "loss_fn_config", key],
          message: `loss_fn ${input.loss_fn} does not accept ${key} (allowed: ${allowed.join(", ") || "none"})`,
        });
      }
    }
    const needed = POLICY_LOSS_INPUTS[input.loss_fn] ?? [];
    input.data.forEach((d, i) => {
      for (const key of needed) {
        if (d.loss_fn_inputs[key as "logprobs" | "advantages"] === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["forward_backward_input", "data", i, "loss_fn_inputs", key],
            message: `loss_fn ${input.loss_fn} needs ${key}`,
          });
        }
      }
    });
  });
export type ForwardBackwardRequest = z.infer<typeof forwardBackwardRequestSchema>;

/** `AdamParams` with SkyRL's bounds; `grad_clip_norm` is the SDK's (SkyRL ignores it). */
export const adamParamsSchema = z.strictObject({
  learning_rate: z.number().min(0),
  beta1: z.number().min(0).lt(1),
  beta2: z.number().min(0).lt(1),
  eps: z.number().gt(0),
  weight_decay: z.number().min(0),
  grad_clip_norm: z.number().min(0).optional(),
});
export type AdamParams = z.infer<typeof adamParamsSchema>;

/** POST /api/v1/optim_step. */
export const optimStepRequestSchema = z.strictObject({
  model_id: z.string().min(1),
  adam_params: adamParamsSchema,
  seq_id: seqId,
  type: z.literal("optim_step").optional(),
});
export type OptimStepRequest = z.infer<typeof optimStepRequestSchema>;

/** POST /api/v1/save_weights_for_sampler: a `path` (name), or both sampling-session ids (SkyRL's check). */
export const saveWeightsForSamplerRequestSchema = z
  .strictObject({
    model_id: z.string().min(1),
    path: checkpointNameSchema.optional(),
    sampling_session_seq_id: z.number().int().optional(),
    seq_id: seqId,
    ttl_seconds: z.number().int().positive().optional(),
    type: z.literal("save_weights_for_sampler"),
  })
  .refine(
    (r) => r.path !== undefined || (r.sampling_session_seq_id !== undefined && r.seq_id !== undefined),
    {
      message: "Either 'path' or both 'sampling_session_seq_id' and 'seq_id' must be provided",
    },
  );
export type SaveWeightsForSamplerRequest = z.infer<typeof saveWeightsForSamplerRequestSchema>;

/** POST /api/v1/save_weights: training state (weights + optimizer) under a name. */
export const saveWeightsRequestSchema = z.strictObject({
  model_id: z.string().min(1),
  path: checkpointNameSchema,
  seq_id: seqId,
  ttl_seconds: z.number().int().positive().optional(),
  type: z.literal("save_weights").optional(),
});
export type SaveWeightsRequest = z.infer<typeof saveWeightsRequestSchema>;

/** POST /api/v1/load_weights: only as a model's first request after create_model (SkyRL and Tinker). */
export const loadWeightsRequestSchema = z.strictObject({
  model_id: z.string().min(1),
  path: weightsPathSchema,
  optimizer: z.boolean(),
  seq_id: seqId,
  type: z.literal("load_weights").optional(),
});
export type LoadWeightsRequest = z.infer<typeof loadWeightsRequestSchema>;

/** `SamplingParams`: SkyRL requires max_tokens > 0; `stop` is all strings or all token ids, never mixed. */
export const tinkerSamplingParamsSchema = z.strictObject({
  max_tokens: z.number().int().positive(),
  seed: z.number().int().nullish(),
  stop: z.union([z.array(z.string().min(1)), z.array(tokenId)]).nullish(),
  temperature: z.number().min(0),
  top_k: z.number().int().min(-1),
  top_p: z.number().gt(0).max(1),
});
export type TinkerSamplingParams = z.infer<typeof tinkerSamplingParamsSchema>;

/** POST /api/v1/asample: exactly one of base_model and model_path (or a sampling session + seq_id). */
export const sampleRequestSchema = z
  .strictObject({
    num_samples: z.number().int().positive(),
    prompt: modelInputSchema,
    sampling_params: tinkerSamplingParamsSchema,
    base_model: z.string().min(1).optional(),
    model_path: samplerPathSchema.optional(),
    sampling_session_id: z.string().min(1).optional(),
    seq_id: seqId,
    prompt_logprobs: z.boolean().optional(),
    topk_prompt_logprobs: z.number().int().min(0).optional(),
    type: z.literal("sample"),
  })
  .superRefine((r, ctx) => {
    if (r.sampling_session_id !== undefined) {
      if (r.seq_id === undefined) {
        ctx.addIssue({
          code: "custom",
          message: "'seq_id' must be provided when 'sampling_session_id' is used",
        });
      }
    } else if ((r.base_model === undefined) === (r.model_path === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "exactly one of 'base_model' or 'model_path' must be provided",
      });
    }
    if (r.prompt.chunks.every((c) => c.tokens.length === 0)) {
      ctx.addIssue({ code: "custom", path: ["prompt"], message: "the prompt is empty" });
    }
  });
export type SampleRequest = z.infer<typeof sampleRequestSchema>;

/** POST /api/v1/retrieve_future. */
export const retrieveFutureRequestSchema = z.strictObject({
  request_id: z.string().min(1),
  allow_metadata_only: z.boolean().optional(),
});

/** Every request schema by endpoint (the contract server validates with these). */
export const TINKER_REQUEST_SCHEMAS = {
  createSession: createSessionRequestSchema,
  sessionHeartbeat: sessionHeartbeatRequestSchema,
  createModel: createModelRequestSchema,
  getInfo: getInfoRequestSchema,
  forwardBackward: forwardBackwardRequestSchema,
  optimStep: optimStepRequestSchema,
  saveWeightsForSampler: saveWeightsForSamplerRequestSchema,
  saveWeights: saveWeightsRequestSchema,
  loadWeights: loadWeightsRequestSchema,
  asample: sampleRequestSchema,
  retrieveFuture: retrieveFutureRequestSchema,
} as const satisfies Partial<Record<TinkerEndpoint, z.ZodType>>;

// ---------------------------------------------------------------------------------------------------
// Responses (loose: only what we read)

const requestIdSchema = z.union([z.string().min(1), z.number().int()]).transform(String);

/** SkyRL `FutureResponse {future_id, status, request_id}`; SDK `UntypedAPIFuture {request_id, model_id?}`. */
export const futureResponseSchema = z.looseObject({ request_id: requestIdSchema });

/** create_model's immediate answer: SkyRL also names the model here; hosted Tinker only in the result. */
export const createModelResponseSchema = z.looseObject({
  request_id: requestIdSchema,
  model_id: z.string().min(1).optional(),
});

export const createSessionResponseSchema = z.looseObject({
  session_id: z.string().min(1),
  info_message: z.string().nullish(),
  warning_message: z.string().nullish(),
  error_message: z.string().nullish(),
});

export const modelInfoResponseSchema = z.looseObject({
  model_id: z.string().min(1),
  status: z.string().optional(),
  model_data: z.looseObject({
    base_model: z.string().min(1),
    lora_config: z.looseObject({ rank: z.number().int() }).nullish(),
  }),
});
export type ModelInfoResponse = z.infer<typeof modelInfoResponseSchema>;

/** retrieve_future, still pending (hosted Tinker answers 200 with this; SkyRL answers 408). */
export const tryAgainResponseSchema = z.looseObject({ type: z.literal("try_again") });
/** retrieve_future, failed: SDK `RequestFailedResponse {error, category}`, SkyRL `ErrorResponse {error, status}`. */
export const requestFailedResponseSchema = z.looseObject({
  error: z.string(),
  category: z.string().optional(),
  status: z.string().optional(),
});
/** FastAPI's error body: `{detail: "message"}`, or a list of validation errors (422). */
export const errorDetailSchema = z.looseObject({
  detail: z.union([
    z.string(),
    z.array(z.looseObject({ loc: z.array(z.unknown()).optional(), msg: z.string().optional() })),
  ]),
});

/** Future result of create_model: SkyRL `CreateModelOutput`, SDK `CreateModelResponse`. */
export const createModelResultSchema = z.looseObject({ model_id: z.string().min(1) });

const tensorOutSchema = z.looseObject({ data: z.array(z.number()) });
/** Future result of forward_backward: per-datum outputs (e.g. `logprobs`, `elementwise_loss`) and metrics. */
export const forwardBackwardOutputSchema = z.looseObject({
  loss_fn_output_type: z.string(),
  loss_fn_outputs: z.array(z.record(z.string(), tensorOutSchema)),
  /** SkyRL types this as a plain dict; numbers are what we keep. */
  metrics: z.record(z.string(), z.unknown()),
});
export type ForwardBackwardOutput = z.infer<typeof forwardBackwardOutputSchema>;

export const optimStepOutputSchema = z.looseObject({
  metrics: z.record(z.string(), z.number()).nullish(),
});
export type OptimStepOutput = z.infer<typeof optimStepOutputSchema>;

/** With a `path` in the request both servers answer the sampler path (SkyRL: tinker://MODEL/NAME). */
export const saveWeightsForSamplerOutputSchema = z.looseObject({
  path: samplerPathSchema,
  sampling_session_id: z.string().nullish(),
});

export const saveWeightsOutputSchema = z.looseObject({ path: weightsPathSchema });

export const loadWeightsOutputSchema = z.looseObject({
  type: z.string().nullish(),
  path: z.string().nullish(),
  model_id: z.string().nullish(),
});

/** Future result of asample: SkyRL `SampleOutput`, SDK `SampleResponse` (JSON form). */
export const sampleOutputSchema = z.looseObject({
  sequences: z
    .array(
      z.looseObject({
        tokens: z.array(tokenId),
        logprobs: z.array(z.number().nullable()).nullish(),
        stop_reason: z.enum(["length", "stop"]),
      }),
    )
    .min(1),
});
export type SampleOutput = z.infer<typeof sampleOutputSchema>;

/** A 1-D tensor as we send it. */
export function tensor(data: number[], dtype: z.infer<typeof tensorDtypeSchema>): TensorData {
  return { data, dtype, shape: [data.length] };
}
