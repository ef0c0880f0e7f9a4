// The engine-neutral record of one rollout (slime `Sample`-like): the prompt's ids, then one flat
// response made of sampled turns (loss mask 1, the sampler's logprobs) and observation turns (tool
// results and template tokens: loss mask 0, logprob 0.0). Sampled ids are the sampler's ids, never
// re-tokenized text; see docs/trajectory.md. Every other form of the record (the JSON Schema in
// proto/schema, the proto message and its codec, the Parquet columns, the Python dataclass) is
// generated from or checked against this schema.
import { z } from "zod";
import { rewardErrorSchema } from "./reward-error.ts";

export const TRAJECTORY_SCHEMA_VERSION = 1;

/**
 * Which logprobs an inference server returns for the sampled tokens (vLLM `--logprobs-mode`):
 * `raw`: log_softmax of the model's logits, temperature 1, before any sampling processor (vLLM's
 * default `raw_logprobs`); `processed`: of the distribution actually sampled from, after temperature
 * (vLLM `processed_logprobs`: also after penalties, top-k/top-p; SGLang's default: after temperature,
 * before top-k/top-p). The two agree at temperature 1 without top-k/top-p/penalties. See
 * docs/training.md "Which logprobs".
 */
export const LOGPROBS_KINDS = ["raw", "processed"] as const;
export type LogprobsKind = (typeof LOGPROBS_KINDS)[number];

/**
 * What the record guarantees beyond each field's type: checked by `trajectorySchema` (and so by every
 * reader that validates with it), stated in trajectory.schema.json's description for other languages.
 */
export const TRAJECTORY_INVARIANTS: readonly string[] = [
  "loss_mask and rollout_logprobs have one entry per response_ids entry",
  "turns cover response_ids end to end: turn 0 starts at 0, each turn starts where the previous ended, is non-empty, and the last ends at len(response_ids)",
  "loss_mask is 1 on every token of a sampled turn and 0 on every token of an observation turn",
  "rollout_logprobs is exactly 0.0 wherever loss_mask is 0",
  "turn_rewards, when present, has one entry per turn (0 on observation turns); a trainer puts entry i on the last token of turn i",
  "a tool call's is_error is true exactly when its error_code is not null",
  "a tool call's turn, when present, is the index of a sampled turn",
  "an image's turn is an observation turn; a full or downscaled image has start < end inside that turn, a dropped or text one neither",
  "reward is null when not scored or when scoring failed; then reward_error, when present, says why (never a silent 0)",
];

const tokenId = z.number().int().nonnegative();
const nonNegInt = z.number().int().nonnegative();
/** A trainer step (verl, SkyRL) or an engine's weight-version string (SGLang `weight_version`). */
const policyVersion = z.union([z.number().int(), z.string()]);

/**
 * A version as text (proto fields, SGLang's `weight_version`): text that a safe integer prints as
 * (`"7"`, `"-1"`, not `"07"`) is a trainer step and becomes that number; anything else stays text.
 */
export function policyVersionFromText(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) && String(n) === text ? n : text;
}

export const turnSchema = z.object({
  kind: z.enum(["sampled", "observation"]),
  start: nonNegInt.describe("First index in response_ids."),
  end: nonNegInt.describe("One past the last index in response_ids."),
  policy_version: policyVersion
    .nullable()
    .optional()
    .describe("Weight version the sampler reported for this turn (sampled turns, async engines)."),
});

/** What one tool call spent on a model (a model tool, or an agent tool's sub-agent): tokens, and cost where a price is configured. */
export const toolCallUsageSchema = z.object({
  prompt_tokens: nonNegInt,
  completion_tokens: nonNegInt,
  cost_usd: z.number().finite().min(0).optional().describe("USD, from the tool server's configured price."),
  model: z.string().describe("The model that answered."),
});

export const toolCallRecordSchema = z.object({
  name: z.string(),
  arguments: z.unknown(),
  result: z.string().describe("The result text shown to the model (before any token-budget truncation)."),
  latency_ms: z.number().nonnegative(),
  error_code: z
    .string()
    .nullable()
    .describe(
      "Null on success; else a gateway call code (`TIMEOUT`, `UNKNOWN_TOOL`, ...), `TOOL_ERROR` or `MALFORMED_<code>`.",
    ),
  is_error: z.boolean(),
  turn: nonNegInt.optional().describe("Index into `turns` of the sampled turn that made the call."),
  usage: toolCallUsageSchema
    .optional()
    .describe(
      "What the call spent on a model (a model tool, or the sum over an agent tool's sub-agent calls); absent when it spent nothing (a cache hit, a program tool).",
    ),
});

/** What the model was shown of a tool-result image (docs/images.md). */
export const IMAGE_SHOWN = ["full", "downscaled", "dropped", "text"] as const;

/** One image a tool answered with: its bytes stored by content hash beside the record, its token span. */
export const trajectoryImageSchema = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("SHA-256 of the stored bytes (what the inference server got, for a shown image), hex."),
  mime_type: z.string().describe("`image/png` or `image/jpeg`."),
  path: z.string().describe("Where the bytes are, relative to the run directory (`images/<sha256>.png`)."),
  width: nonNegInt.describe("Pixels of the stored image (0: its header could not be read)."),
  height: nonNegInt,
  shown: z
    .enum(IMAGE_SHOWN)
    .describe(
      "`full` or `downscaled`: placeholder tokens in the context and the bytes sent to the server; `dropped` (past `vision.max_images`) or `text` (no vision-language template): a one-line text note instead.",
    ),
  tool_call: nonNegInt.describe("Index into `tool_calls` of the call that answered it."),
  turn: nonNegInt.describe("Index into `turns` of the observation turn that shows it."),
  start: nonNegInt
    .optional()
    .describe("First `<|image_pad|>` token of a shown image in response_ids (loss mask 0)."),
  end: nonNegInt.optional().describe("One past its last `<|image_pad|>` token."),
  source_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("A downscaled image: the hash of the tool's own bytes."),
});

export const trajectoryStatusSchema = z.enum(["completed", "truncated", "aborted", "failed"]);

/** The record's fields, each with its type (the invariants across fields: checkTrajectoryInvariants). */
export const trajectoryFields = z.object({
  schema_version: z.literal(TRAJECTORY_SCHEMA_VERSION),
  task_id: z.string(),
  group_id: z.string(),
  sample_index: nonNegInt,
  policy_version: policyVersion
    .nullable()
    .describe(
      "Weights the rollout started with: given at start, else the first sampled turn's (turns carry their own).",
    ),
  prompt_ids: z.array(tokenId).min(1),
  response_ids: z.array(tokenId),
  loss_mask: z.array(z.union([z.literal(0), z.literal(1)])),
  rollout_logprobs: z.array(z.number().finite().max(0)),
  logprobs_kind: z
    .enum(LOGPROBS_KINDS)
    .optional()
    .describe(
      "Which logprobs `rollout_logprobs` are (`inference.logprobs_mode`): `raw` (temperature 1, vLLM's default) or `processed` (of the distribution sampled from, after temperature). Absent: unknown.",
    ),
  sampling_temperature: z
    .number()
    .finite()
    .min(0)
    .optional()
    .describe(
      "The temperature the sampled turns were drawn at (`rollout.sampling.temperature` or the request's).",
    ),
  turns: z.array(turnSchema),
  tool_calls: z.array(toolCallRecordSchema),
  reward: z
    .number()
    .finite()
    .nullable()
    .describe(
      "Null when not scored yet, or when scoring hit an infrastructure failure (see `reward_error`).",
    ),
  reward_components: z.record(z.string(), z.number().finite()),
  reward_error: rewardErrorSchema
    .nullable()
    .optional()
    .describe(
      "Set when scoring failed for infrastructure reasons (judge down, verify tool timed out): never a silent 0.",
    ),
  turn_rewards: z
    .array(z.number().finite())
    .optional()
    .describe(
      "Optional per-turn rewards, one per entry of `turns` (0 on observation turns): the process rewards + weight × each per-turn component's value (`ftrl_solve`); a trainer puts entry i on turn i's last token.",
    ),
  advantage: z
    .number()
    .finite()
    .nullable()
    .optional()
    .describe(
      "GRPO group-normalised advantage (null when the group could not be normalised, e.g. reward null).",
    ),
  stale: z
    .boolean()
    .optional()
    .describe(
      "Sampled too many weight versions behind the trainer's current one (rollout service `staleness`).",
    ),
  status: trajectoryStatusSchema,
  status_reason: z.string().nullable(),
  timings: z
    .record(z.string(), z.number().nonnegative())
    .describe("Milliseconds by phase (`generate_ms`, `tool_ms`, `reward_ms`, `total_ms`, ...)."),
  metadata: z.record(z.string(), z.unknown()).optional(),
  images: z
    .array(trajectoryImageSchema)
    .optional()
    .describe(
      "Tool-result images in context order, each stored by content hash beside the record; absent: none.",
    ),
});

export const trajectorySchema = trajectoryFields.superRefine(checkTrajectoryInvariants).meta({
  title: "Trajectory",
  description: `One rollout of one task, engine-neutral (rlfactory trajectory record, schema_version ${TRAJECTORY_SCHEMA_VERSION}; docs/trajectory.md). Invariants beyond the field types: ${TRAJECTORY_INVARIANTS.map((x) => `(${x})`).join("; ")}.`,
});

/**
 * The record's invariants (TRAJECTORY_INVARIANTS), each broken one an issue: `trajectorySchema`'s
 * refinement, shared with TrajectoryBuilder's own check of the records it builds.
 */
export function checkTrajectoryInvariants(t: z.output<typeof trajectoryFields>, ctx: z.RefinementCtx): void {
  const n = t.response_ids.length;
  for (const [key, len] of [
    ["loss_mask", t.loss_mask.length],
    ["rollout_logprobs", t.rollout_logprobs.length],
  ] as const) {
    if (len !== n)
      ctx.addIssue({ code: "custom", path: [key], message: `length ${len} ≠ response_ids ${n}` });
  }
  let at = 0;
  t.turns.forEach((turn, i) => {
    if (turn.start !== at || turn.end <= turn.start || turn.end > n) {
      ctx.addIssue({
        code: "custom",
        path: ["turns", i],
        message: `turn [${turn.start}, ${turn.end}) must start at ${at}, be non-empty and end ≤ ${n}`,
      });
    }
    const want = turn.kind === "sampled" ? 1 : 0;
    for (let j = turn.start; j < Math.min(turn.end, n); j++) {
      if (t.loss_mask[j] !== want) {
        ctx.addIssue({
          code: "custom",
          path: ["loss_mask", j],
          message: `must be ${want} in ${turn.kind} turn ${i}`,
        });
        break;
      }
      if (want === 0 && t.rollout_logprobs[j] !== 0) {
        ctx.addIssue({
          code: "custom",
          path: ["rollout_logprobs", j],
          message: "must be 0.0 where masked",
        });
        break;
      }
    }
    at = turn.end;
  });
  if (t.turn_rewards !== undefined && t.turn_rewards.length !== t.turns.length) {
    ctx.addIssue({
      code: "custom",
      path: ["turn_rewards"],
      message: `length ${t.turn_rewards.length} ≠ turns ${t.turns.length}`,
    });
  }
  if (at !== n)
    ctx.addIssue({ code: "custom", path: ["turns"], message: `turns cover ${at} of ${n} tokens` });
  for (const [i, c] of t.tool_calls.entries()) {
    if (c.is_error !== (c.error_code !== null)) {
      ctx.addIssue({
        code: "custom",
        path: ["tool_calls", i],
        message: "is_error must equal error_code !== null",
      });
    }
    if (c.turn !== undefined && t.turns[c.turn]?.kind !== "sampled") {
      ctx.addIssue({
        code: "custom",
        path: ["tool_calls", i, "turn"],
        message: "must index a sampled turn",
      });
    }
  }
  for (const [i, image] of (t.images ?? []).entries()) {
    const turn = t.turns[image.turn];
    const spanned = image.shown === "full" || image.shown === "downscaled";
    const ok =
      turn?.kind === "observation" &&
      image.tool_call < t.tool_calls.length &&
      (spanned
        ? image.start !== undefined &&
          image.end !== undefined &&
          image.start >= turn.start &&
          image.start < image.end &&
          image.end <= turn.end
        : image.start === undefined && image.end === undefined);
    if (!ok) {
      ctx.addIssue({
        code: "custom",
        path: ["images", i],
        message: `image ${image.sha256.slice(0, 12)} (${image.shown}) must name a tool call and an observation turn${spanned ? " and lie inside it" : " and have no span"}`,
      });
    }
  }
}

export type Turn = z.infer<typeof turnSchema>;
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;
export type ToolCallUsage = z.infer<typeof toolCallUsageSchema>;
export type TrajectoryImage = z.infer<typeof trajectoryImageSchema>;
export type TrajectoryStatus = z.infer<typeof trajectoryStatusSchema>;
export type Trajectory = z.infer<typeof trajectorySchema>;
