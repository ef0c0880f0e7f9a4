// The `rlf env build` configuration (one YAML or JSON file): the OpenAI-compatible endpoint, where the
// seed questions come from, which structures and scaling strategies, how many of each, and the
// validation limits. Keys are snake_case like the rollout config. Parsed once, at the edge.
import { dirname, isAbsolute, resolve } from "node:path";
import { loadConfigFile, parseConfig } from "@rlfactory/kit";
import { z } from "zod";

const positiveInt = z.number().int().positive();

export class BuildConfigError extends Error {
  override name = "BuildConfigError";
}

/** The four question structures of stage 1 (scenario decomposition). */
export const STRUCTURES = ["single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"] as const;
export type Structure = (typeof STRUCTURES)[number];

/** The four complexity-scaling strategies of stage 4. */
export const SCALING_STRATEGIES = [
  "functional_generalization",
  "parameter_expansion",
  "parameter_type_generalization",
  "toolset_extension",
] as const;
export type ScalingStrategy = (typeof SCALING_STRATEGIES)[number];

const endpointSchema = z.strictObject({
  /** The OpenAI-compatible API root, e.g. `http://127.0.0.1:8000/v1` (vLLM's OpenAI server). */
  base_url: z.url(),
  /** The model name sent with every request. */
  model: z.string().min(1),
  /** Env var holding the API key, sent as `authorization: Bearer KEY`; omitted: no key. */
  api_key_env: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).default(0),
  /** Completion tokens per request at most. */
  max_tokens: positiveInt.default(2048),
  /** One request's deadline. */
  timeout_ms: positiveInt.default(120_000),
  /** Transport failures (refused, 5xx, 429, deadline) retried this many times per request. */
  http_retries: z.number().int().nonnegative().default(3),
  /** Ask for `response_format: {type: "json_object"}` (vLLM and OpenAI accept it). */
  json_mode: z.boolean().default(true),
});

/** A task file we read (HotpotQA, NQ, our JSONL/Parquet): the rollout's dataset section. */
const taskFileSchema = z.strictObject({
  path: z.string().min(1),
  format: z.enum(["auto", "jsonl", "parquet"]).default("auto"),
  limit: positiveInt.optional(),
  offset: z.number().int().nonnegative().default(0),
  shuffle_seed: z.number().int().optional(),
});

export const buildConfigSchema = z.strictObject({
  /** The bundle's name (manifest `name`; the task file's default server name). */
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 letters, digits, '_' or '-'")
    .default("env"),
  endpoint: endpointSchema,
  /** Requests in flight at once; during validation, sandbox workers (at most one per CPU). */
  concurrency: positiveInt.default(4),
  /** Sent as the request `seed` (mixed with each item's id); also orders any sampling the pipeline does. */
  seed: z.number().int().nonnegative().default(0),
  input: z
    .strictObject({
      /** Seed questions (with their gold answers) from task files. */
      tasks: z.array(taskFileSchema).default([]),
      /** Free-text scenario descriptions: the model writes a question and its answer for each. */
      scenarios: z.array(z.string().min(1)).default([]),
    })
    .refine((i) => i.tasks.length + i.scenarios.length > 0, "give input.tasks or input.scenarios"),
  /** Which decomposition structures are kept (a question decomposed into another one is rejected). */
  structures: z
    .array(z.enum(STRUCTURES))
    .min(1)
    .default([...STRUCTURES]),
  scaling: z
    .strictObject({
      /** Strategies applied to every task's toolset in stage 4. */
      strategies: z.array(z.enum(SCALING_STRATEGIES)).default([...SCALING_STRATEGIES]),
      /** Distractor tools per task (toolset_extension). */
      distractors: z.number().int().nonnegative().default(2),
    })
    .default({ strategies: [...SCALING_STRATEGIES], distractors: 2 }),
  counts: z
    .strictObject({
      /** Seed questions (task rows + scenarios, in that order) read at most. */
      seeds: positiveInt.optional(),
      /** Questions the model writes per scenario (each a seed of its own). */
      questions_per_scenario: positiveInt.default(1),
      /** Sub-questions per question at most (a longer decomposition is rejected). */
      max_sub_questions: positiveInt.default(6),
    })
    .default({ questions_per_scenario: 1, max_sub_questions: 6 }),
  /** A model reply that is not valid JSON of the stage's shape is asked again this many times, then rejected. */
  max_reply_retries: z.number().int().nonnegative().default(2),
  validation: z
    .strictObject({
      /** One tool call's time limit in the sandbox. */
      timeout_ms: positiveInt.default(2000),
      /** Address space of a sandbox worker, MiB. */
      memory_mb: z.number().int().min(64).default(512),
      /** Tasks whose questions share at least this fraction of word trigrams with an earlier one are removed. */
      duplicate_threshold: z.number().min(0).max(1).default(0.8),
    })
    .default({ timeout_ms: 2000, memory_mb: 512, duplicate_threshold: 0.8 }),
  output: z
    .strictObject({
      /** The gateway server name the task file's tools use (`SERVER__tool`); default: `name`. */
      server: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/)
        .optional(),
      /** Free fields copied into the manifest's `source` (e.g. `fixture: true`). */
      source: z.record(z.string(), z.unknown()).default({}),
    })
    .default({ source: {} }),
});

export type BuildConfig = z.output<typeof buildConfigSchema>;
export type BuildConfigInput = z.input<typeof buildConfigSchema>;

/** Validates a config object; relative task paths resolve against `baseDir`. */
export function parseBuildConfig(raw: unknown, baseDir = process.cwd(), path?: string): BuildConfig {
  const config = parseConfig(buildConfigSchema, raw, {
    what: "build config",
    error: BuildConfigError,
    ...(path ? { path } : {}),
  });
  for (const t of config.input.tasks) if (!isAbsolute(t.path)) t.path = resolve(baseDir, t.path);
  return config;
}

/** Reads and validates a build config file (YAML or JSON). */
export function loadBuildConfig(path: string): BuildConfig {
  const config = loadConfigFile(path, buildConfigSchema, { what: "build config", error: BuildConfigError });
  for (const t of config.input.tasks)
    if (!isAbsolute(t.path)) t.path = resolve(dirname(resolve(path)), t.path);
  return config;
}
