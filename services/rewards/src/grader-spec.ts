// The rule-grader language, the project's one language for deterministic rewards: the `grader` object
// of the judge's `mode: "rule"` request and a rule component of the rollout's reward config are the same
// spec. It mirrors OpenAI's grader schema (string_check, text_similarity, multi) and adds the QA metrics
// of SQuAD / Search-R1 (exact_match, f1). A zod discriminated union on `type`; `multi` nests graders by
// name and combines their scores with a small arithmetic formula (see formula.ts).
import { z } from "zod";

/** string_check operations. `like`/`ilike` are OpenAI's names for contains/icontains. */
export const STRING_CHECK_OPERATIONS = ["eq", "ne", "ieq", "contains", "icontains", "like", "ilike"] as const;
export type StringCheckOperation = (typeof STRING_CHECK_OPERATIONS)[number];

export const SIMILARITY_METRICS = ["fuzzy_match", "rouge_1", "rouge_2", "rouge_l", "bleu"] as const;
export type SimilarityMetric = (typeof SIMILARITY_METRICS)[number];

/** Names of sub-graders in a `multi` grader: identifiers the formula can refer to. */
const SUB_GRADER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Deepest allowed nesting of `multi` graders (a request body is untrusted input). */
export const MAX_GRADER_DEPTH = 8;

export interface StringCheckSpec {
  type: "string_check";
  name?: string | undefined;
  operation: StringCheckOperation;
  /** Compared against the response; defaults to the request's reference. */
  reference?: string | undefined;
}

export interface TextSimilaritySpec {
  type: "text_similarity";
  name?: string | undefined;
  metric: SimilarityMetric;
  /** With a threshold the score is 1 when similarity ≥ threshold, else 0; without it, the similarity. */
  pass_threshold?: number | undefined;
  /** Defaults to the request's reference. */
  reference?: string | undefined;
}

/** SQuAD's normalised exact match (qa-match.ts): 1 when the response equals a reference, else 0. */
export interface ExactMatchSpec {
  type: "exact_match";
  name?: string | undefined;
  /** Defaults to the caller's references (the judge request's reference, the task's gold answers). */
  reference?: string | undefined;
}

/** SQuAD v1.1 token F1 with HotpotQA's yes/no/noanswer rule (qa-match.ts), best over the references. */
export interface F1Spec {
  type: "f1";
  name?: string | undefined;
  reference?: string | undefined;
}

export interface MultiSpec {
  type: "multi";
  name?: string | undefined;
  graders: Record<string, GraderSpec>;
  /** Arithmetic over the sub-graders' names, e.g. `0.5 * a + 0.5 * b`; the result is clamped to [0, 1]. */
  calculate_output: string;
}

export type GraderSpec = StringCheckSpec | TextSimilaritySpec | ExactMatchSpec | F1Spec | MultiSpec;

/** The grader types (the `type` of a spec). */
export const GRADER_TYPES = ["string_check", "text_similarity", "exact_match", "f1", "multi"] as const;
export type GraderType = GraderSpec["type"];

export const stringCheckSchema = z.strictObject({
  type: z.literal("string_check"),
  name: z.string().optional(),
  operation: z.enum(STRING_CHECK_OPERATIONS),
  reference: z.string().optional(),
});

export const textSimilaritySchema = z.strictObject({
  type: z.literal("text_similarity"),
  name: z.string().optional(),
  metric: z.enum(SIMILARITY_METRICS),
  pass_threshold: z.number().min(0).max(1).optional(),
  reference: z.string().optional(),
});

export const exactMatchSchema = z.strictObject({
  type: z.literal("exact_match"),
  name: z.string().optional(),
  reference: z.string().optional(),
});

export const f1Schema = z.strictObject({
  type: z.literal("f1"),
  name: z.string().optional(),
  reference: z.string().optional(),
});

export const multiSchema = z.strictObject({
  type: z.literal("multi"),
  name: z.string().optional(),
  graders: z
    .record(
      z.string().regex(SUB_GRADER_NAME, "sub-grader names must be identifiers (letters, digits, _)"),
      z.lazy((): z.ZodType<GraderSpec> => graderSpecSchema),
    )
    .refine((graders) => Object.keys(graders).length > 0, "multi needs at least one sub-grader"),
  calculate_output: z.string().min(1).max(1000),
});

export const graderSpecSchema: z.ZodType<GraderSpec> = z.discriminatedUnion("type", [
  stringCheckSchema,
  textSimilaritySchema,
  exactMatchSchema,
  f1Schema,
  multiSchema,
]);

/** The schema of each grader type (a strict object with a literal `type`), for callers that extend one. */
export const graderSchemas = {
  string_check: stringCheckSchema,
  text_similarity: textSimilaritySchema,
  exact_match: exactMatchSchema,
  f1: f1Schema,
  multi: multiSchema,
} as const;
