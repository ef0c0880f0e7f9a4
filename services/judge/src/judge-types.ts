// The judge's request language and its answers: one request (a model judgment in one of four modes, or
// a rule grader) → a score with metadata, or a typed failure. Never a silent 0 or 1: a failure is a
// failure, and the caller applies its fallback policy. HTTP (`POST /v1/judge`), gRPC (judge.proto) and
// the trainer's reward layer all speak this.
import { z } from "zod";

/** Typed failures (HTTP status in brackets). */
export const judgeErrorCodeSchema = z.enum([
  /** The request is malformed (400). */
  "INVALID_REQUEST",
  /** The judge model's output could not be read as a score, after retries (502). */
  "PARSE_ERROR",
  /** Group mode: the judge returned a different number of scores than trajectories, after retries (502). */
  "COUNT_MISMATCH",
  /** No backend configured, or none reachable (503). */
  "BACKEND_UNAVAILABLE",
  /** The backend answered with an error status (502). */
  "BACKEND_ERROR",
  /** The circuit breaker is open after repeated backend failures (503). */
  "CIRCUIT_OPEN",
  /** The request's deadline passed (504). */
  "TIMEOUT",
  /** The caller cancelled (499). */
  "CANCELLED",
  /** A bug (500). */
  "INTERNAL",
]);
export type JudgeErrorCode = z.infer<typeof judgeErrorCodeSchema>;

/** Which configured limit a request went over (with INVALID_REQUEST or TIMEOUT). */
export interface JudgeLimit {
  /** The config key, e.g. `limits.max_response_chars`, `rule_graders.deadline_ms`. */
  setting: string;
  /** Its value. */
  max: number;
  /** What the request had (characters, sub-graders); absent for a deadline. */
  actual?: number;
}

export class JudgeError extends Error {
  override name = "JudgeError";
  readonly code: JudgeErrorCode;
  readonly limit: JudgeLimit | undefined;
  constructor(code: JudgeErrorCode, message: string, options?: { cause?: unknown; limit?: JudgeLimit }) {
    super(message, options);
    this.code = code;
    this.limit = options?.limit;
  }
}

/** Sampling of the judge model; caching applies only when deterministic (temperature 0, samples 1). */
export const judgeSamplingSchema = z.strictObject({
  temperature: z.number().min(0).max(2).default(0),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().positive().default(512),
  seed: z.number().int().optional(),
});

const common = {
  /** The task or question the response answers. */
  task: z.string().min(1),
  /** Reference answer (reference-guided grading; optional context elsewhere). */
  reference: z.string().optional(),
  /** Inline rubric text; or `rubric_id` naming a versioned built-in/configured rubric. */
  rubric: z.string().optional(),
  rubric_id: z.string().optional(),
  /** Self-consistency: ask k times and aggregate (mean for scores, majority for pairwise/labels). */
  samples: z.number().int().min(1).max(16).default(1),
  sampling: judgeSamplingSchema.optional(),
  /** Overall deadline of this request. */
  deadline_ms: z.number().int().positive().optional(),
  /** Skip the cache for this request. */
  no_cache: z.boolean().optional(),
};

export const pointwiseRequestSchema = z.strictObject({
  mode: z.literal("pointwise"),
  ...common,
  /** The text judged (a final answer or a rendered trajectory). */
  response: z.string(),
});

export const referenceRequestSchema = z.strictObject({
  mode: z.literal("reference"),
  ...common,
  response: z.string(),
  reference: z.string().min(1),
});

export const pairwiseRequestSchema = z.strictObject({
  mode: z.literal("pairwise"),
  ...common,
  /** Exactly two responses; both orders are judged, a flip is a tie. */
  responses: z.tuple([z.string(), z.string()]),
});

export const groupRequestSchema = z.strictObject({
  mode: z.literal("group"),
  ...common,
  /** Context shared by every trajectory of the group (sent once). */
  prefix: z.string().optional(),
  /** The group's trajectories (their distinct parts), scored in one call (RULER style). */
  responses: z.array(z.string()).min(1).max(64),
});

/** A rule grader in the same language (see rule-graders); `response`/`reference` as above. */
export const ruleRequestSchema = z.strictObject({
  mode: z.literal("rule"),
  task: z.string().optional(),
  response: z.string(),
  reference: z.string().optional(),
  grader: z.record(z.string(), z.unknown()),
  /** Shortens the operator's `rule_graders.deadline_ms` for this request (never lengthens it). */
  deadline_ms: z.number().int().positive().optional(),
});

export const judgeRequestSchema = z.discriminatedUnion("mode", [
  pointwiseRequestSchema,
  referenceRequestSchema,
  pairwiseRequestSchema,
  groupRequestSchema,
  ruleRequestSchema,
]);
export type JudgeRequest = z.infer<typeof judgeRequestSchema>;
export type JudgeRequestInput = z.input<typeof judgeRequestSchema>;

/** Recorded with every score, so a reward can be traced to the judge that gave it. */
export interface JudgeMetadata {
  mode: JudgeRequest["mode"];
  /** Backend model name (`rule` for rule graders). */
  judge_model: string;
  /** Rubric/template id and version, e.g. `pointwise-default@2`. */
  template: string;
  latency_ms: number;
  tokens: { prompt: number; completion: number };
  /** Judge calls made (samples × orders × retries). */
  calls: number;
  samples: number;
  cached: boolean;
  /** Per-sample scores before aggregation. */
  sample_scores?: number[];
  explanation?: string;
  /** What the judge noticed along the way: score-like tokens stripped from the response, both raw
   * pairwise verdicts per sample, k>1 samples at temperature 0 … (human-readable). */
  notes?: string[];
  /** Pairwise: the two orders disagreed in some sample (a position flip; judged a tie). */
  pairwise_flip?: boolean;
}

export interface JudgeScore {
  /** In [0, 1]. Pointwise/reference/rule: the score; pairwise: P(first response wins), 0.5 for a tie; group: mean. */
  score: number;
  /** Group mode: one score per response, in request order. */
  scores?: number[];
  /** Pairwise: which response won. */
  winner?: "first" | "second" | "tie";
  metadata: JudgeMetadata;
}

export type JudgeOutcome =
  | { ok: true; result: JudgeScore }
  | { ok: false; error: { code: JudgeErrorCode; message: string; limit?: JudgeLimit } };

/** HTTP status for a failure code. */
export const HTTP_STATUS: Record<JudgeErrorCode, number> = {
  INVALID_REQUEST: 400,
  PARSE_ERROR: 502,
  COUNT_MISMATCH: 502,
  BACKEND_UNAVAILABLE: 503,
  BACKEND_ERROR: 502,
  CIRCUIT_OPEN: 503,
  TIMEOUT: 504,
  CANCELLED: 499,
  INTERNAL: 500,
};
