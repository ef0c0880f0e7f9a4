// The judge service's configuration, parsed once at start-up: the model backend (optional: without
// one only rule graders work), rubrics merged over the built-in templates, the score cache, retry
// counts and request defaults. From a YAML file (`rlf judge --config FILE`) or from the environment
// (JUDGE_BASE_URL, JUDGE_MODEL, JUDGE_API_KEY).
import { parseConfig, readConfigFile } from "@rlfactory/kit";
import { z } from "zod";
import { backendConfigSchema } from "./backend/chat-backend.ts";
import { judgeSamplingSchema } from "./judge-types.ts";

const scaleSchema = z
  .strictObject({ min: z.number(), max: z.number() })
  .refine((s) => s.max > s.min, { message: "scale.max must be greater than scale.min" });

export const rubricConfigSchema = z.strictObject({
  /** Bump when the text changes: recorded with every score (`id@version`) and part of the cache key. */
  version: z.number().int().nonnegative(),
  /** The criteria, slotted into the mode's template. */
  text: z.string().min(1),
  /** The numbers the judge is asked for (default: the template's, 1–10 for pointwise/reference). */
  scale: scaleSchema.optional(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

export const cacheConfigSchema = z.strictObject({
  backend: z.enum(["memory", "redis"]).default("memory"),
  /** Default: $RLF_REDIS_URL, else redis://127.0.0.1:6379. */
  redis_url: z
    .string()
    .min(1)
    .default(() => process.env.RLF_REDIS_URL ?? "redis://127.0.0.1:6379"),
  key_prefix: z.string().default("rlf:judge:"),
  max_entries: z.number().int().positive().default(10_000),
  ttl_ms: z.number().int().positive().default(DAY_MS),
});

/** Per-field input limits (operator-set): a request over one answers INVALID_REQUEST naming it. */
export const limitsConfigSchema = z.strictObject({
  /** `task`, in characters. */
  max_task_chars: z.number().int().positive().default(50_000),
  /** `response`, and each of `responses`, in characters. */
  max_response_chars: z.number().int().positive().default(200_000),
  /** `reference`, in characters. */
  max_reference_chars: z.number().int().positive().default(100_000),
  /** Group mode's shared `prefix`, in characters. */
  max_prefix_chars: z.number().int().positive().default(400_000),
  /** An inline `rubric`, in characters. */
  max_rubric_chars: z.number().int().positive().default(20_000),
  /** A whole HTTP body or gRPC message, in bytes: a larger HTTP body is answered 413. */
  max_body_bytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
});
export type LimitsConfig = z.infer<typeof limitsConfigSchema>;

/** Rule graders run in a pool of worker threads, each request under a deadline (operator-set). */
export const ruleGradersConfigSchema = z.strictObject({
  /** Worker threads grading at once; more requests wait in the pool's queue (their deadline runs). */
  workers: z.number().int().min(1).max(64).default(2),
  /** A rule request's deadline, from its arrival (queue wait included); a request's own `deadline_ms`
   * can only shorten it. When it passes the grader's worker is stopped and the answer is TIMEOUT. */
  deadline_ms: z.number().int().positive().default(5_000),
  /** Graders under one `multi` grader, counted over every level of nesting. */
  max_sub_graders: z.number().int().min(1).max(1_000).default(16),
});
export type RuleGradersConfig = z.infer<typeof ruleGradersConfigSchema>;

export const judgeConfigSchema = z.strictObject({
  /** The OpenAI-compatible judge model; absent → model modes answer BACKEND_UNAVAILABLE. */
  backend: backendConfigSchema.optional(),
  /** Rubrics by id (referenced as `rubric_id`), merged over the built-ins. */
  rubrics: z.record(z.string().min(1), rubricConfigSchema).default({}),
  cache: cacheConfigSchema.prefault({}),
  limits: limitsConfigSchema.prefault({}),
  rule_graders: ruleGradersConfigSchema.prefault({}),
  retries: z
    .strictObject({
      /** Extra judge calls when the output cannot be read as a score. */
      parse: z.number().int().min(0).max(5).default(1),
      /** Group mode: extra calls when the judge returns the wrong number of scores. */
      count: z.number().int().min(0).max(5).default(1),
    })
    .prefault({}),
  defaults: z
    .strictObject({
      /** Samples per request when the request says nothing. */
      samples: z.number().int().min(1).max(16).default(1),
      /** Sampling when the request says nothing. */
      sampling: judgeSamplingSchema.prefault({}),
    })
    .prefault({}),
});
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;
export type JudgeConfigInput = z.input<typeof judgeConfigSchema>;

export class JudgeConfigError extends Error {
  override name = "JudgeConfigError";
}

/** Validate a config object; errors name the offending paths. */
export function parseJudgeConfig(input: unknown, source = "judge config"): JudgeConfig {
  return parseConfig(judgeConfigSchema, input ?? {}, { what: source, error: JudgeConfigError });
}

/** Read and validate a YAML (or JSON) config file. */
export async function loadJudgeConfig(path: string): Promise<JudgeConfig> {
  const options = { what: "judge config", error: JudgeConfigError };
  return parseConfig(judgeConfigSchema, readConfigFile(path, options), { ...options, path });
}

/**
 * A config from the environment: JUDGE_BASE_URL (one URL, or several separated by commas),
 * JUDGE_MODEL and JUDGE_API_KEY (read at call time through `api_key_env`). No JUDGE_BASE_URL → no
 * backend (rule graders only).
 */
export function judgeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): JudgeConfig {
  const baseUrl = env.JUDGE_BASE_URL?.trim();
  if (!baseUrl) return parseJudgeConfig({}, "judge config from the environment");
  const urls = baseUrl
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const model = env.JUDGE_MODEL?.trim();
  if (!model)
    throw new JudgeConfigError("JUDGE_BASE_URL is set but JUDGE_MODEL is not: name the judge model to call");
  return parseJudgeConfig(
    {
      backend: {
        base_urls: urls,
        model,
        ...(env.JUDGE_API_KEY ? { api_key_env: "JUDGE_API_KEY" } : {}),
      },
    },
    "judge config from the environment (JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_API_KEY)",
  );
}
