// Gateway configuration: parsed once, at the edge, into typed objects.
//
// Two input formats:
//  * our YAML (or JSON) format, `servers:` with policies (docs/gateway.md documents every field);
//  * the `mcpServers` JSON that Claude Desktop / Cursor users already have, loaded unchanged, and
//    RL-Factory's `mcp_tools.pydata` (a Python literal list of `{'mcpServers': {...}}` blocks).
//
// Our format's keys are snake_case (`deadline_ms`), like the rollout, judge and train configs; a
// camelCase key (`deadlineMs`) is refused with an error naming the snake_case one. The typed config
// object this module returns is camelCase.
import { dirname, extname, isAbsolute, resolve } from "node:path";
import {
  apiKeysFromEnv as kitApiKeysFromEnv,
  MIN_API_KEY_LENGTH,
  parseConfig,
  readConfigFile,
} from "@rlfactory/kit";
import JSON5 from "json5";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { templatePlaceholders } from "./prompt-template.ts";

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().min(0);

/** Per-tool policy knobs; every field optional so layers (defaults → server → tool) can be merged. */
const ToolPolicyInput = z
  .object({
    /** Deadline applied when the call carries none. */
    deadline_ms: positiveInt,
    /** Upper bound on any call's deadline, whatever the caller asks. */
    max_deadline_ms: positiveInt,
    /** Cache results: true, false, or "auto" (cache when the tool is annotated readOnly + idempotent). */
    cache: z.union([z.boolean(), z.literal("auto")]),
    cache_ttl_ms: positiveInt,
    /** Safe to retry; defaults to the tool's `idempotentHint` annotation. */
    idempotent: z.boolean(),
    retry: z
      .object({ max_attempts: positiveInt, initial_delay_ms: nonNegativeInt, max_delay_ms: nonNegativeInt })
      .partial()
      .strict(),
    /** Text content beyond this many bytes is cut with a visible marker. */
    max_output_bytes: positiveInt,
    /** Calls whose arguments JSON exceeds this are rejected with ARGUMENTS_TOO_LARGE. */
    max_argument_bytes: positiveInt,
    /** A result with an image block larger than this (decoded bytes) fails with OUTPUT_TOO_LARGE. */
    max_image_bytes: positiveInt,
    /** Calls whose arguments nest objects/arrays deeper than this are rejected with INVALID_ARGUMENTS. */
    max_argument_depth: positiveInt,
  })
  .partial()
  .strict();
type ToolPolicyInput = z.infer<typeof ToolPolicyInput>;

/** Per-upstream knobs: one breaker and one bulkhead per upstream server. */
const UpstreamPolicyInput = z
  .object({
    breaker: z
      .object({ consecutive_failures: positiveInt, half_open_after_ms: positiveInt })
      .partial()
      .strict(),
    bulkhead: z.object({ max_concurrent: positiveInt, max_queue: nonNegativeInt }).partial().strict(),
    /** Restart / reconnect backoff after the server dies or the connection drops. */
    reconnect: z.object({ initial_delay_ms: positiveInt, max_delay_ms: positiveInt }).partial().strict(),
    /** Time allowed for connect + initialize + tools/list. */
    connect_timeout_ms: positiveInt,
    /** Episodes on an environment server (docs/environments.md): live limit, idle and total lifetime. */
    episodes: z
      .object({ max_live: positiveInt, idle_timeout_ms: positiveInt, max_ttl_ms: positiveInt })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

const ToolFilter = {
  /** Only these upstream tool names are exposed (default: all). */
  include: z.array(z.string()).optional(),
  /** These upstream tool names are hidden. */
  exclude: z.array(z.string()).optional(),
};

const ProtocolMode = z.union([
  z.literal("auto"),
  z.literal("legacy"),
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
]);

const ServerCommon = {
  ...ToolFilter,
  /** MCP protocol era: "auto" probes (2026-07-28 stateless if offered, else the 2025 handshake). */
  protocol: ProtocolMode.optional(),
  policy: ToolPolicyInput.and(UpstreamPolicyInput).optional(),
  /** Per-tool overrides, keyed by the upstream tool name. */
  tools: z.record(z.string(), ToolPolicyInput).optional(),
  disabled: z.boolean().optional(),
};

/**
 * Per-episode instances of a stdio server that keeps state but knows nothing of episodes
 * (docs/environments.md#any-stateful-mcp-server-per-episode-instances): every episode gets its own process.
 */
const IsolationInput = z
  .object({
    isolate: z.literal("process"),
    /** `warm` idle instances kept started ahead of StartEpisode; `max` instances at once (idle ones included). */
    pool: z.object({ warm: nonNegativeInt, max: positiveInt }).partial().strict().optional(),
    /** Each instance's own directory, `{workdir}` in args, env values and cwd: empty, or a copy of a file / directory. */
    workdir: z.union([z.literal("temp"), z.object({ copy: z.string().min(1) }).strict()]).optional(),
    /** ForkEpisode: replay the episode's recorded calls on fresh instances, or refuse (UNSUPPORTED). */
    fork: z.enum(["replay", "refuse"]).optional(),
    /**
     * Arguments the gateway sets on every call of a tool whose input schema has them (`{workdir}`
     * replaced), hidden from the model's catalog: a git server's `repo_path`, say.
     */
    fixed_arguments: z.record(z.string(), z.unknown()).optional(),
    /** SnapshotEpisode / EndEpisode: this tool's result is the state (absent: snapshots are UNSUPPORTED). */
    snapshot: z
      .object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() })
      .strict()
      .optional(),
  })
  .strict();

const StdioServerInput = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  episodes: IsolationInput.optional(),
  ...ServerCommon,
});

const HttpServerInput = z.object({
  type: z.enum(["streamable-http", "streamableHttp", "http", "sse"]).optional(),
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  ...ServerCommon,
});

/** One tool of a model server: a prompt template over the tool's arguments (docs/gateway.md#model-tools). */
const ModelToolInput = z
  .object({
    description: z.string().optional(),
    /** The tool's arguments, a JSON Schema object (`type: object`); `{{name}}` in messages names one of its properties. */
    input_schema: z.looseObject({ type: z.literal("object") }),
    /** The chat sent for one call; `{{arg}}` is replaced by the argument's value (text as is, anything else as JSON). */
    messages: z
      .array(z.object({ role: z.enum(["system", "user", "assistant"]), content: z.string() }).strict())
      .min(1),
    /** Overrides of the endpoint's sampling for this tool. */
    max_tokens: positiveInt.optional(),
    temperature: z.number().min(0).max(2).optional(),
  })
  .strict();

/** An OpenAI-compatible chat-completions endpoint (model and agent servers). */
const EndpointInput = z
  .object({
    /** The API root (`http://host:8000/v1`). */
    base_url: z.url({ protocol: /^https?$/ }),
    model: z.string().min(1),
    /** Name of the environment variable holding the API key (`Authorization: Bearer`), read at start. */
    api_key_env: z.string().min(1).optional(),
    temperature: z.number().min(0).max(2).optional(),
    /** Completion tokens per call at most. */
    max_tokens: positiveInt.optional(),
    /** USD per million tokens; with it every call reports its cost. */
    price_per_million_tokens: z
      .object({ prompt: z.number().finite().min(0), completion: z.number().finite().min(0) })
      .strict()
      .optional(),
  })
  .strict();

/** Per trajectory (the call's trajectory id), over all of a server's tools: past it, BUDGET_EXCEEDED. */
const TrajectoryBudgetInput = z.object({ calls: positiveInt, tokens: positiveInt }).partial().strict();

const ModelServerInput = z.object({
  kind: z.literal("model"),
  endpoint: EndpointInput,
  trajectory_budget: TrajectoryBudgetInput.optional(),
  /** The tools, by name. */
  model_tools: z.record(z.string(), ModelToolInput),
  ...ServerCommon,
});

/** One tool of an agent server: a sub-agent over some of the gateway's tools (docs/gateway.md#agent-tools). */
const AgentToolInput = ModelToolInput.extend({
  /** Gateway tools (`server__tool`) the sub-agent may call, resolved in the catalog at call time. */
  tools: z.array(z.string().min(1)).min(1),
  /** Model calls at most (each may call tools); a run that has not answered by then is BUDGET_EXCEEDED. */
  max_steps: positiveInt.optional(),
  /** Tokens (prompt + completion, all model calls of one run) at most; past it, BUDGET_EXCEEDED. */
  token_budget: positiveInt.optional(),
  /** Also return the sub-agent's messages as the result's structured content. */
  transcript: z.boolean().optional(),
  /** May `tools` name another agent server's tools (never this server's own). */
  allow_agent_tools: z.boolean().optional(),
}).strict();

const AgentServerInput = z.object({
  kind: z.literal("agent"),
  endpoint: EndpointInput,
  trajectory_budget: TrajectoryBudgetInput.optional(),
  /** The tools, by name. */
  agent_tools: z.record(z.string(), AgentToolInput),
  ...ServerCommon,
});

/** Our format: unknown keys are typos and rejected. */
const ServerInput = z.union([
  StdioServerInput.strict(),
  HttpServerInput.strict(),
  ModelServerInput.strict(),
  AgentServerInput.strict(),
]);
/** `mcpServers` blocks from other clients carry their own extra keys (autoApprove, timeout, ...): ignored. */
const ForeignServerInput = z.union([StdioServerInput, HttpServerInput]);

/** Server names become the prefix of `server__tool`, so they obey the same alphabet and no `__`. */
const SERVER_NAME = /^[a-zA-Z0-9.-]+(_[a-zA-Z0-9.-]+)*$/;
const ServerName = z.string();

/** The shortest API key accepted, from the config file or from `api_keys_env` alike. */
export { MIN_API_KEY_LENGTH };

const GatewayInput = z
  .object({
    grpc: z
      .object({ host: z.string(), port: nonNegativeInt, max_message_bytes: positiveInt })
      .partial()
      .strict()
      .optional(),
    admin: z
      .object({ host: z.string(), port: nonNegativeInt, enabled: z.boolean() })
      .partial()
      .strict()
      .optional(),
    auth: z
      .object({
        /** Accepted API keys (`authorization: Bearer KEY`). */
        api_keys: z
          .array(
            z.string().min(MIN_API_KEY_LENGTH, `an API key needs at least ${MIN_API_KEY_LENGTH} characters`),
          )
          .optional(),
        /** Name of an env var holding comma-separated API keys. */
        api_keys_env: z.string().optional(),
      })
      .strict()
      .optional(),
    cache: z
      .object({
        backend: z.enum(["memory", "redis"]),
        redis_url: z.string(),
        key_prefix: z.string(),
        max_entries: positiveInt,
        max_bytes: positiveInt,
      })
      .partial()
      .strict()
      .optional(),
    defaults: ToolPolicyInput.and(UpstreamPolicyInput).optional(),
    /** Cap on the number of calls in one CallTools batch. */
    max_batch_size: positiveInt.optional(),
    /** The per-trajectory call log read by `GET /v1/calls` (call-log.ts). */
    call_log: z
      .object({
        max_calls_per_trajectory: positiveInt,
        /** 0: no log. */
        max_trajectories: nonNegativeInt,
        ttl_ms: positiveInt,
      })
      .partial()
      .strict()
      .optional(),
    servers: z.record(ServerName, ServerInput).optional(),
    /** Other clients' format (Claude Desktop, Cursor): its own key, spelled as they spell it. */
    mcpServers: z.record(ServerName, ForeignServerInput).optional(),
  })
  .strict();

// ---- normalised, fully-defaulted types -------------------------------------------------------

export interface ToolPolicy {
  deadlineMs: number;
  maxDeadlineMs: number;
  cache: boolean | "auto";
  cacheTtlMs: number;
  idempotent: boolean | undefined;
  retry: { maxAttempts: number; initialDelayMs: number; maxDelayMs: number };
  maxOutputBytes: number;
  maxArgumentBytes: number;
  /** Largest image block (decoded bytes) a result may carry; beyond it the call fails with OUTPUT_TOO_LARGE. */
  maxImageBytes: number;
  /** Deepest object/array nesting accepted in arguments (checked before anything recursive sees them). */
  maxArgumentDepth: number;
}

/** A partial tool policy (a server's or one tool's override), merged field by field. */
export type ToolPolicyOverride = Partial<Omit<ToolPolicy, "retry">> & {
  retry?: Partial<ToolPolicy["retry"]>;
};

export interface UpstreamPolicy {
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  bulkhead: { maxConcurrent: number; maxQueue: number };
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  connectTimeoutMs: number;
  /** Episodes of an environment server: at most `maxLive` at once, each ended after `idleTimeoutMs` without
   * an operation or `maxTtlMs` after its start (a StartEpisode ttl_ms may ask for less). */
  episodes: { maxLive: number; idleTimeoutMs: number; maxTtlMs: number };
}

export type Transport =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined }
  | { kind: "http"; url: string; headers: Record<string, string> }
  | { kind: "sse"; url: string; headers: Record<string, string> }
  | ModelServer
  | AgentServer;

/** An OpenAI-compatible chat-completions endpoint. */
export interface ModelEndpoint {
  baseUrl: string;
  model: string;
  /** Read from `api_key_env` when the config is loaded. */
  apiKey: string | undefined;
  temperature: number | undefined;
  maxTokens: number | undefined;
  price: { prompt: number; completion: number } | undefined;
}

/** A model server (`kind: model`): tools that are prompt templates over an OpenAI-compatible endpoint. */
export interface ModelServer {
  kind: "model";
  endpoint: ModelEndpoint;
  /** Per trajectory, over all of the server's tools; undefined: no limit. */
  budget: { calls: number | undefined; tokens: number | undefined };
  tools: ModelTool[];
}

/** An agent server (`kind: agent`): tools that each run a sub-agent over some of the gateway's tools. */
export interface AgentServer {
  kind: "agent";
  endpoint: ModelEndpoint;
  /** Per trajectory, over all of the server's tools (the sub-agents' model tokens); undefined: no limit. */
  budget: { calls: number | undefined; tokens: number | undefined };
  tools: AgentTool[];
}

export interface AgentTool extends ModelTool {
  /** Gateway tool names the sub-agent may call. */
  tools: string[];
  maxSteps: number;
  /** Tokens per run; undefined: no limit but the trajectory's. */
  tokenBudget: number | undefined;
  transcript: boolean;
}

/** An agent tool's steps when `max_steps` is not set. */
export const DEFAULT_AGENT_MAX_STEPS = 8;

export interface ModelTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  maxTokens: number | undefined;
  temperature: number | undefined;
}

/** The `{workdir}` placeholder: each per-episode instance's own directory. */
export const WORKDIR_PLACEHOLDER = "{workdir}";

/** A stdio server run as one process per episode (the server entry's `episodes:`). */
export interface Isolation {
  /** Idle instances kept started, ready for the next StartEpisode. */
  warm: number;
  /** Instances at once, idle ones included: a StartEpisode / ForkEpisode past it answers RATE_LIMITED. */
  max: number;
  /** Each instance's directory: none, a fresh empty one, or a fresh one holding a copy of `from` (absolute). */
  workdir: { kind: "none" } | { kind: "temp" } | { kind: "copy"; from: string };
  fork: "replay" | "refuse";
  snapshot: { tool: string; arguments: Record<string, unknown> } | undefined;
  /** Set on every call of a tool whose input schema has the property, and hidden from the catalog. */
  fixedArguments: Record<string, unknown>;
}

export interface ServerConfig {
  name: string;
  transport: Transport;
  /** Set when every episode gets its own process of this (stdio) server. */
  isolation?: Isolation;
  protocol: "auto" | "legacy" | string;
  include: string[] | undefined;
  exclude: string[];
  /** Server-level tool policy (defaults merged in); per-tool overrides live in `toolOverrides`. */
  toolPolicy: ToolPolicy;
  toolOverrides: Record<string, ToolPolicyOverride>;
  upstream: UpstreamPolicy;
}

export interface GatewayConfig {
  grpc: { host: string; port: number; maxMessageBytes: number };
  admin: { host: string; port: number; enabled: boolean };
  /** Every accepted API key (the config's, then the env var's); empty = auth off. */
  apiKeys: string[];
  /** The env var `auth.api_keys_env` named and how many keys it gave, for the start-up log. */
  apiKeysEnv: { name: string; count: number } | undefined;
  cache: {
    backend: "memory" | "redis";
    redisUrl: string;
    keyPrefix: string;
    maxEntries: number;
    maxBytes: number;
  };
  maxBatchSize: number;
  /** The per-trajectory call log (`GET /v1/calls`; call-log.ts). */
  callLog: { maxCallsPerTrajectory: number; maxTrajectories: number; ttlMs: number };
  servers: ServerConfig[];
}

export const DEFAULT_TOOL_POLICY: ToolPolicy = {
  deadlineMs: 30_000,
  maxDeadlineMs: 300_000,
  cache: false,
  cacheTtlMs: 600_000,
  idempotent: undefined,
  retry: { maxAttempts: 3, initialDelayMs: 50, maxDelayMs: 1_000 },
  maxOutputBytes: 1024 * 1024,
  maxArgumentBytes: 1024 * 1024,
  maxImageBytes: 1024 * 1024,
  maxArgumentDepth: 64,
};

export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = {
  breaker: { consecutiveFailures: 5, halfOpenAfterMs: 5_000 },
  bulkhead: { maxConcurrent: 64, maxQueue: 1_024 },
  reconnect: { initialDelayMs: 100, maxDelayMs: 10_000 },
  connectTimeoutMs: 30_000,
  episodes: { maxLive: 1_024, idleTimeoutMs: 600_000, maxTtlMs: 3_600_000 },
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Merges a partial tool policy over a complete one (nested `retry` merged field by field). */
export function mergeToolPolicy(base: ToolPolicy, over: ToolPolicyOverride | undefined): ToolPolicy {
  if (!over) return base;
  const { retry, ...flat } = over;
  return { ...base, ...stripUndefined(flat), retry: { ...base.retry, ...stripUndefined(retry ?? {}) } };
}

/** The file's snake_case tool policy as the camelCase override the gateway merges. */
function toolPolicyOverride(p: ToolPolicyInput | undefined): ToolPolicyOverride | undefined {
  if (!p) return undefined;
  return stripUndefined({
    deadlineMs: p.deadline_ms,
    maxDeadlineMs: p.max_deadline_ms,
    cache: p.cache,
    cacheTtlMs: p.cache_ttl_ms,
    idempotent: p.idempotent,
    retry: p.retry
      ? stripUndefined({
          maxAttempts: p.retry.max_attempts,
          initialDelayMs: p.retry.initial_delay_ms,
          maxDelayMs: p.retry.max_delay_ms,
        })
      : undefined,
    maxOutputBytes: p.max_output_bytes,
    maxArgumentBytes: p.max_argument_bytes,
    maxImageBytes: p.max_image_bytes,
    maxArgumentDepth: p.max_argument_depth,
  });
}

function mergeUpstreamPolicy(base: UpstreamPolicy, over: z.infer<typeof UpstreamPolicyInput> | undefined) {
  if (!over) return base;
  return {
    breaker: {
      consecutiveFailures: over.breaker?.consecutive_failures ?? base.breaker.consecutiveFailures,
      halfOpenAfterMs: over.breaker?.half_open_after_ms ?? base.breaker.halfOpenAfterMs,
    },
    bulkhead: {
      maxConcurrent: over.bulkhead?.max_concurrent ?? base.bulkhead.maxConcurrent,
      maxQueue: over.bulkhead?.max_queue ?? base.bulkhead.maxQueue,
    },
    reconnect: {
      initialDelayMs: over.reconnect?.initial_delay_ms ?? base.reconnect.initialDelayMs,
      maxDelayMs: over.reconnect?.max_delay_ms ?? base.reconnect.maxDelayMs,
    },
    connectTimeoutMs: over.connect_timeout_ms ?? base.connectTimeoutMs,
    episodes: {
      maxLive: over.episodes?.max_live ?? base.episodes.maxLive,
      idleTimeoutMs: over.episodes?.idle_timeout_ms ?? base.episodes.idleTimeoutMs,
      maxTtlMs: over.episodes?.max_ttl_ms ?? base.episodes.maxTtlMs,
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface NormaliseOptions {
  /** The file the config came from, named in errors. */
  path?: string;
  /** The environment `auth.api_keys_env` and `RLF_REDIS_URL` are read from (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Validates a parsed config object (either format) and fills every default. Relative `cwd`s resolve
 * against `baseDir`.
 */
export function normaliseConfig(
  raw: unknown,
  baseDir = process.cwd(),
  options: NormaliseOptions = {},
): GatewayConfig {
  const env = options.env ?? process.env;
  const checked = GatewayInput.safeParse(raw);
  const camelCase = checked.success ? [] : camelCaseKeyErrors(checked.error.issues);
  if (camelCase.length > 0) {
    const source = options.path === undefined ? "gateway config" : `gateway config ${options.path}`;
    throw new ConfigError(`invalid ${source}: ${camelCase.join("; ")}`);
  }
  const input = parseConfig(GatewayInput, raw, {
    what: "gateway config",
    error: ConfigError,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  const defaultsTool = mergeToolPolicy(
    DEFAULT_TOOL_POLICY,
    toolPolicyOverride(pickToolPolicy(input.defaults)),
  );
  const defaultsUpstream = mergeUpstreamPolicy(DEFAULT_UPSTREAM_POLICY, input.defaults);

  const entries = [...Object.entries(input.servers ?? {}), ...Object.entries(input.mcpServers ?? {})];
  const seen = new Set<string>();
  const servers: ServerConfig[] = [];
  for (const [name, server] of entries) {
    if (!SERVER_NAME.test(name)) {
      throw new ConfigError(
        `server name "${name}": use [a-zA-Z0-9._-], not starting or ending with '_', and no '__'`,
      );
    }
    if (seen.has(name)) throw new ConfigError(`server "${name}" is defined twice`);
    seen.add(name);
    if (server.disabled) continue;
    const transport =
      "kind" in server
        ? server.kind === "model"
          ? toModelServer(name, server, env)
          : toAgentServer(name, server, env)
        : toTransport(server, baseDir);
    const isolation =
      "episodes" in server ? toIsolation(name, server.episodes, transport, baseDir) : undefined;
    servers.push({
      name,
      transport,
      ...(isolation ? { isolation } : {}),
      protocol: server.protocol ?? "auto",
      include: server.include,
      exclude: server.exclude ?? [],
      toolPolicy: mergeToolPolicy(defaultsTool, toolPolicyOverride(pickToolPolicy(server.policy))),
      toolOverrides: Object.fromEntries(
        Object.entries(server.tools ?? {}).map(([tool, policy]) => [tool, toolPolicyOverride(policy) ?? {}]),
      ),
      upstream: mergeUpstreamPolicy(defaultsUpstream, server.policy),
    });
  }

  checkAgentTools(input.servers ?? {});

  const fromEnv = input.auth?.api_keys_env
    ? apiKeysFromEnv(input.auth.api_keys_env, env[input.auth.api_keys_env])
    : undefined;
  const apiKeys = [...(input.auth?.api_keys ?? []), ...(fromEnv ?? [])];

  return {
    grpc: {
      host: input.grpc?.host ?? "127.0.0.1",
      port: input.grpc?.port ?? 50051,
      maxMessageBytes: input.grpc?.max_message_bytes ?? 64 * 1024 * 1024,
    },
    admin: {
      host: input.admin?.host ?? "127.0.0.1",
      port: input.admin?.port ?? 8080,
      enabled: input.admin?.enabled ?? true,
    },
    apiKeys,
    apiKeysEnv:
      input.auth?.api_keys_env && fromEnv
        ? { name: input.auth.api_keys_env, count: fromEnv.length }
        : undefined,
    cache: {
      backend: input.cache?.backend ?? "memory",
      redisUrl: input.cache?.redis_url ?? env.RLF_REDIS_URL ?? "redis://127.0.0.1:6379",
      keyPrefix: input.cache?.key_prefix ?? "rlf:cache:v1:",
      maxEntries: input.cache?.max_entries ?? 10_000,
      maxBytes: input.cache?.max_bytes ?? 256 * 1024 * 1024,
    },
    maxBatchSize: input.max_batch_size ?? 1_024,
    callLog: {
      maxCallsPerTrajectory: input.call_log?.max_calls_per_trajectory ?? 256,
      maxTrajectories: input.call_log?.max_trajectories ?? 10_000,
      ttlMs: input.call_log?.ttl_ms ?? 3_600_000,
    },
    servers,
  };
}

/**
 * The keys in `auth.api_keys_env`'s variable: comma-separated, blanks around and between ignored. Auth
 * fails closed: a variable that is unset, empty, holds no key, or holds a key shorter than
 * MIN_API_KEY_LENGTH refuses the config (the message names the variable and the key's position, never
 * the key), rather than starting a gateway with auth off or with a guessable key.
 */
function apiKeysFromEnv(name: string, value: string | undefined): string[] {
  try {
    return kitApiKeysFromEnv("auth.api_keys_env", name, value);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

const TOOL_POLICY_KEYS = ToolPolicyInput.keyof().options;

/** The tool-policy part of a combined tool + upstream policy object. */
function pickToolPolicy(p: ToolPolicyInput | undefined): ToolPolicyInput | undefined {
  if (!p) return undefined;
  return Object.fromEntries(TOOL_POLICY_KEYS.map((k) => [k, p[k]])) as ToolPolicyInput;
}

function toEndpoint(
  name: string,
  e: z.infer<typeof EndpointInput>,
  env: Readonly<Record<string, string | undefined>>,
): ModelEndpoint {
  let apiKey: string | undefined;
  if (e.api_key_env !== undefined) {
    apiKey = env[e.api_key_env];
    if (!apiKey)
      throw new ConfigError(
        `server "${name}": the API key variable ${e.api_key_env} (endpoint.api_key_env) is not set`,
      );
  }
  return {
    baseUrl: e.base_url,
    model: e.model,
    apiKey,
    temperature: e.temperature,
    maxTokens: e.max_tokens,
    price: e.price_per_million_tokens,
  };
}

function toModelTool(name: string, tool: string, t: z.infer<typeof ModelToolInput>): ModelTool {
  const properties = Object.keys((t.input_schema.properties as Record<string, unknown> | undefined) ?? {});
  const unknown = t.messages
    .flatMap((m) => templatePlaceholders(m.content))
    .filter((p) => !properties.includes(p));
  if (unknown.length > 0)
    throw new ConfigError(
      `server "${name}": tool "${tool}" uses {{${unknown[0]}}}, which is not a property of its input_schema`,
    );
  return {
    name: tool,
    description: t.description ?? "",
    inputSchema: t.input_schema as ModelTool["inputSchema"],
    messages: t.messages,
    maxTokens: t.max_tokens,
    temperature: t.temperature,
  };
}

function toModelServer(
  name: string,
  server: z.infer<typeof ModelServerInput>,
  env: Readonly<Record<string, string | undefined>>,
): ModelServer {
  const tools = Object.entries(server.model_tools).map(([tool, t]) => toModelTool(name, tool, t));
  if (tools.length === 0) throw new ConfigError(`server "${name}": model_tools is empty`);
  return {
    kind: "model",
    endpoint: toEndpoint(name, server.endpoint, env),
    budget: { calls: server.trajectory_budget?.calls, tokens: server.trajectory_budget?.tokens },
    tools,
  };
}

function toAgentServer(
  name: string,
  server: z.infer<typeof AgentServerInput>,
  env: Readonly<Record<string, string | undefined>>,
): AgentServer {
  const tools = Object.entries(server.agent_tools).map(
    ([tool, t]): AgentTool => ({
      ...toModelTool(name, tool, t),
      tools: t.tools,
      maxSteps: t.max_steps ?? DEFAULT_AGENT_MAX_STEPS,
      tokenBudget: t.token_budget,
      transcript: t.transcript ?? false,
    }),
  );
  if (tools.length === 0) throw new ConfigError(`server "${name}": agent_tools is empty`);
  return {
    kind: "agent",
    endpoint: toEndpoint(name, server.endpoint, env),
    budget: { calls: server.trajectory_budget?.calls, tokens: server.trajectory_budget?.tokens },
    tools,
  };
}

/**
 * An agent tool never calls its own server's tools (no recursion into itself), and calls another agent
 * server's tools only with `allow_agent_tools: true`.
 */
function checkAgentTools(servers: Record<string, z.infer<typeof ServerInput>>): void {
  const agents = new Set(
    Object.entries(servers)
      .filter(([, s]) => "kind" in s && s.kind === "agent")
      .map(([n]) => n),
  );
  for (const [name, server] of Object.entries(servers)) {
    if (!("kind" in server) || server.kind !== "agent") continue;
    for (const [tool, t] of Object.entries(server.agent_tools)) {
      for (const target of t.tools) {
        const targetServer = target.split("__", 1)[0] ?? "";
        if (targetServer === name)
          throw new ConfigError(
            `server "${name}": tool "${tool}" lists ${target}, a tool of its own server (an agent never calls itself)`,
          );
        if (agents.has(targetServer) && t.allow_agent_tools !== true)
          throw new ConfigError(
            `server "${name}": tool "${tool}" lists ${target}, an agent tool: set allow_agent_tools: true to let it call one`,
          );
      }
    }
  }
}

function toTransport(
  server: z.infer<typeof StdioServerInput> | z.infer<typeof HttpServerInput>,
  baseDir: string,
): Transport {
  if ("command" in server) {
    return {
      kind: "stdio",
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      // A cwd that starts at an instance's own directory is resolved per instance (Isolation).
      cwd: server.cwd
        ? isAbsolute(server.cwd) || server.cwd.startsWith(WORKDIR_PLACEHOLDER)
          ? server.cwd
          : resolve(baseDir, server.cwd)
        : undefined,
    };
  }
  const kind = server.type === "sse" ? "sse" : "http";
  return { kind, url: server.url, headers: server.headers ?? {} };
}

const DEFAULT_POOL = { warm: 1, max: 64 };

function toIsolation(
  name: string,
  input: z.infer<typeof IsolationInput> | undefined,
  transport: Transport,
  baseDir: string,
): Isolation | undefined {
  if (!input || transport.kind !== "stdio") return undefined;
  const warm = input.pool?.warm ?? Math.min(DEFAULT_POOL.warm, input.pool?.max ?? DEFAULT_POOL.max);
  const max = input.pool?.max ?? Math.max(DEFAULT_POOL.max, warm);
  if (warm > max)
    throw new ConfigError(`server "${name}": episodes.pool.warm (${warm}) is more than pool.max (${max})`);
  const workdir: Isolation["workdir"] =
    input.workdir === undefined
      ? { kind: "none" }
      : input.workdir === "temp"
        ? { kind: "temp" }
        : {
            kind: "copy",
            from: isAbsolute(input.workdir.copy) ? input.workdir.copy : resolve(baseDir, input.workdir.copy),
          };
  const uses = [
    ...transport.args,
    ...Object.values(transport.env),
    transport.cwd ?? "",
    JSON.stringify(input.fixed_arguments ?? {}),
    JSON.stringify(input.snapshot?.arguments ?? {}),
  ].some((v) => v.includes(WORKDIR_PLACEHOLDER));
  if (uses && workdir.kind === "none")
    throw new ConfigError(
      `server "${name}": ${WORKDIR_PLACEHOLDER} is used but episodes.workdir is not set (temp, or {copy: PATH})`,
    );
  return {
    warm,
    max,
    workdir,
    fork: input.fork ?? "refuse",
    fixedArguments: input.fixed_arguments ?? {},
    snapshot: input.snapshot
      ? { tool: input.snapshot.tool, arguments: input.snapshot.arguments ?? {} }
      : undefined,
  };
}

/**
 * Parses config text by file extension: `.yaml`/`.yml` as YAML, `.json` as JSON,
 * `.pydata` (RL-Factory) as a Python literal list of `{'mcpServers': {...}}` blocks.
 */
export function parseConfigText(text: string, filename: string): unknown {
  try {
    return parseByExtension(text, filename);
  } catch (err) {
    throw new ConfigError(`cannot parse ${filename}: ${(err as Error).message}`);
  }
}

function parseByExtension(text: string, filename: string): unknown {
  const ext = extname(filename).toLowerCase();
  if (ext === ".yaml" || ext === ".yml") return parseYaml(text) ?? {};
  if (ext === ".pydata" || ext === ".py")
    return mergeMcpServerBlocks(JSON5.parse(pythonLiteralToJson5(text)));
  const value: unknown = JSON5.parse(text);
  return Array.isArray(value) ? mergeMcpServerBlocks(value) : value;
}

/** Reads and normalises a config file; relative `cwd`s resolve against the file's directory. */
export function loadConfigFile(path: string, options: Omit<NormaliseOptions, "path"> = {}): GatewayConfig {
  const raw = readConfigFile(path, {
    what: "gateway config",
    error: ConfigError,
    parseText: parseByExtension,
  });
  return normaliseConfig(raw, dirname(resolve(path)), { ...options, path });
}

// ---- camelCase keys: refused, naming the snake_case key -----------------------------------------

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * One line per camelCase key our format refused (`unknown key "maxQueue" in servers.search.policy.bulkhead:
 * use "max_queue"`), found among the validation issues, unions' included. Only keys the strict schema
 * refused are named, so a server's, tool's or header's own name is never one of them.
 */
function camelCaseKeyErrors(issues: readonly z.core.$ZodIssue[], at: readonly PropertyKey[] = []): string[] {
  const lines = new Set<string>();
  for (const issue of issues) {
    const path = [...at, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      const where = path.length === 0 ? "at the top level" : `in ${path.map(String).join(".")}`;
      for (const key of issue.keys) {
        if (/[A-Z]/.test(key)) lines.add(`unknown key "${key}" ${where}: use "${snakeCase(key)}"`);
      }
    } else if (issue.code === "invalid_union") {
      for (const branch of issue.errors) for (const line of camelCaseKeyErrors(branch, path)) lines.add(line);
    }
  }
  return [...lines];
}

function mergeMcpServerBlocks(blocks: unknown): unknown {
  if (!Array.isArray(blocks)) return blocks;
  const mcpServers: Record<string, unknown> = {};
  for (const block of blocks) {
    const servers = (block as { mcpServers?: Record<string, unknown> } | null)?.mcpServers;
    if (!servers || typeof servers !== "object")
      throw new Error("each list entry needs an 'mcpServers' object");
    Object.assign(mcpServers, servers);
  }
  return { mcpServers };
}

/** Python literals differ from JSON5 only in True/False/None outside strings. */
function pythonLiteralToJson5(text: string): string {
  return text.replace(/("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\b(True|False|None)\b/g, (m, str, word) =>
    str ? m : word === "True" ? "true" : word === "False" ? "false" : "null",
  );
}
