// The rule-grader language: the `grader` object of a `mode: "rule"` request, mirroring OpenAI's grader
// schema (string_check, text_similarity, multi). A zod discriminated union on `type`; `multi` nests
// graders by name and combines their scores with a small arithmetic formula (see formula.ts).
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

export interface MultiSpec {
  type: "multi";
  name?: string | undefined;
  graders: Record<string, GraderSpec>;
  /** Arithmetic over the sub-graders' names, e.g. `0.5 * a + 0.5 * b`; the result is clamped to [0, 1]. */
  calculate_output: string;
}

export type GraderSpec = StringCheckSpec | TextSimilaritySpec | MultiSpec;

const stringCheckSchema = z.strictObject({
  type: z.literal("string_check"),
  name: z.string().optional(),
  operation: z.enum(STRING_CHECK_OPERATIONS),
  reference: z.string().optional(),
});

const textSimilaritySchema = z.strictObject({
  type: z.literal("text_similarity"),
  name: z.string().optional(),
  metric: z.enum(SIMILARITY_METRICS),
  pass_threshold: z.number().min(0).max(1).optional(),
  reference: z.string().optional(),
});

const multiSchema = z.strictObject({
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
  multiSchema,
]);
