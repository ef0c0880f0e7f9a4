// Gateway configuration: parsed once, at the edge, into typed objects.
//
// Two input formats:
//  * our YAML (or JSON) format, `servers:` with policies (docs/gateway.md documents every field);
//  * the `mcpServers` JSON that Claude Desktop / Cursor users already have, loaded unchanged, and
//    RL-Factory's `mcp_tools.pydata` (a Python literal list of `{'mcpServers': {...}}` blocks).
import { readFileSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import JSON5 from "json5";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().min(0);

/** Per-tool policy knobs; every field optional so layers (defaults → server → tool) can be merged. */
const ToolPolicyInput = z
  .object({
    /** Deadline applied when the call carries none. */
    deadlineMs: positiveInt,
    /** Upper bound on any call's deadline, whatever the caller asks. */
    maxDeadlineMs: positiveInt,
    /** Cache results: true, false, or "auto" (cache when the tool is annotated readOnly + idempotent). */
    cache: z.union([z.boolean(), z.literal("auto")]),
    cacheTtlMs: positiveInt,
    /** Safe to retry; defaults to the tool's `idempotentHint` annotation. */
    idempotent: z.boolean(),
    retry: z
      .object({ maxAttempts: positiveInt, initialDelayMs: nonNegativeInt, maxDelayMs: nonNegativeInt })
      .partial()
      .strict(),
    /** Text content beyond this many bytes is cut with a visible marker. */
    maxOutputBytes: positiveInt,
    /** Calls whose arguments JSON exceeds this are rejected with ARGUMENTS_TOO_LARGE. */
    maxArgumentBytes: positiveInt,
  })
  .partial()
  .strict();
export type ToolPolicyInput = z.infer<typeof ToolPolicyInput>;

/** Per-upstream knobs: one breaker and one bulkhead per upstream server. */
const UpstreamPolicyInput = z
  .object({
    breaker: z.object({ consecutiveFailures: positiveInt, halfOpenAfterMs: positiveInt }).partial().strict(),
    bulkhead: z.object({ maxConcurrent: positiveInt, maxQueue: nonNegativeInt }).partial().strict(),
    /** Restart / reconnect backoff after the server dies or the connection drops. */
    reconnect: z.object({ initialDelayMs: positiveInt, maxDelayMs: positiveInt }).partial().strict(),
    /** Time allowed for connect + initialize + tools/list. */
    connectTimeoutMs: positiveInt,
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

const StdioServerInput = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...ServerCommon,
});

const HttpServerInput = z.object({
  type: z.enum(["streamable-http", "streamableHttp", "http", "sse"]).optional(),
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  ...ServerCommon,
});

/** Our format: unknown keys are typos and rejected. */
const ServerInput = z.union([StdioServerInput.strict(), HttpServerInput.strict()]);
/** `mcpServers` blocks from other clients carry their own extra keys (autoApprove, timeout, ...): ignored. */
const ForeignServerInput = z.union([StdioServerInput, HttpServerInput]);

/** Server names become the prefix of `server__tool`, so they obey the same alphabet and no `__`. */
const SERVER_NAME = /^[a-zA-Z0-9.-]+(_[a-zA-Z0-9.-]+)*$/;
const ServerName = z.string();

const GatewayInput = z
  .object({
    grpc: z
      .object({ host: z.string(), port: nonNegativeInt, maxMessageBytes: positiveInt })
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
        apiKeys: z.array(z.string().min(8)).optional(),
        /** Name of an env var holding comma-separated API keys. */
        apiKeysEnv: z.string().optional(),
      })
      .strict()
      .optional(),
    cache: z
      .object({
        backend: z.enum(["memory", "redis"]),
        redisUrl: z.string(),
        keyPrefix: z.string(),
        maxEntries: positiveInt,
        maxBytes: positiveInt,
      })
      .partial()
      .strict()
      .optional(),
    defaults: ToolPolicyInput.and(UpstreamPolicyInput).optional(),
    /** Cap on the number of calls in one CallTools batch. */
    maxBatchSize: positiveInt.optional(),
    servers: z.record(ServerName, ServerInput).optional(),
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
}

export interface UpstreamPolicy {
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number };
  bulkhead: { maxConcurrent: number; maxQueue: number };
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  connectTimeoutMs: number;
}

export type Transport =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined }
  | { kind: "http"; url: string; headers: Record<string, string> }
  | { kind: "sse"; url: string; headers: Record<string, string> };

export interface ServerConfig {
  name: string;
  transport: Transport;
  protocol: "auto" | "legacy" | string;
  include: string[] | undefined;
  exclude: string[];
  /** Server-level tool policy (defaults merged in); per-tool overrides live in `toolOverrides`. */
  toolPolicy: ToolPolicy;
  toolOverrides: Record<string, ToolPolicyInput>;
  upstream: UpstreamPolicy;
}

export interface GatewayConfig {
  grpc: { host: string; port: number; maxMessageBytes: number };
  admin: { host: string; port: number; enabled: boolean };
  apiKeys: string[];
  cache: {
    backend: "memory" | "redis";
    redisUrl: string;
    keyPrefix: string;
    maxEntries: number;
    maxBytes: number;
  };
  maxBatchSize: number;
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
};

export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = {
  breaker: { consecutiveFailures: 5, halfOpenAfterMs: 5_000 },
  bulkhead: { maxConcurrent: 64, maxQueue: 1_024 },
  reconnect: { initialDelayMs: 100, maxDelayMs: 10_000 },
  connectTimeoutMs: 30_000,
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Merges a partial tool policy over a complete one (nested `retry` merged field by field). */
export function mergeToolPolicy(base: ToolPolicy, over: ToolPolicyInput | undefined): ToolPolicy {
  if (!over) return base;
  const { retry, ...flat } = over;
  return { ...base, ...stripUndefined(flat), retry: { ...base.retry, ...stripUndefined(retry ?? {}) } };
}

function mergeUpstreamPolicy(base: UpstreamPolicy, over: z.infer<typeof UpstreamPolicyInput> | undefined) {
  if (!over) return base;
  return {
    breaker: { ...base.breaker, ...stripUndefined(over.breaker ?? {}) },
    bulkhead: { ...base.bulkhead, ...stripUndefined(over.bulkhead ?? {}) },
    reconnect: { ...base.reconnect, ...stripUndefined(over.reconnect ?? {}) },
    connectTimeoutMs: over.connectTimeoutMs ?? base.connectTimeoutMs,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Validates a parsed config object (either format) and fills every default. */
export function normaliseConfig(raw: unknown, baseDir = process.cwd()): GatewayConfig {
  const parsed = GatewayInput.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid gateway config:\n${z.prettifyError(parsed.error)}`);
  const input = parsed.data;
  const defaultsTool = mergeToolPolicy(DEFAULT_TOOL_POLICY, pickToolPolicy(input.defaults));
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
    servers.push({
      name,
      transport: toTransport(server, baseDir),
      protocol: server.protocol ?? "auto",
      include: server.include,
      exclude: server.exclude ?? [],
      toolPolicy: mergeToolPolicy(defaultsTool, pickToolPolicy(server.policy)),
      toolOverrides: server.tools ?? {},
      upstream: mergeUpstreamPolicy(defaultsUpstream, server.policy),
    });
  }

  const apiKeys = [...(input.auth?.apiKeys ?? [])];
  if (input.auth?.apiKeysEnv) {
    const fromEnv = process.env[input.auth.apiKeysEnv];
    if (fromEnv === undefined) {
      throw new ConfigError(`auth.apiKeysEnv names ${input.auth.apiKeysEnv}, which is not set`);
    }
    apiKeys.push(
      ...fromEnv
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
    );
  }

  return {
    grpc: {
      host: input.grpc?.host ?? "127.0.0.1",
      port: input.grpc?.port ?? 50051,
      maxMessageBytes: input.grpc?.maxMessageBytes ?? 64 * 1024 * 1024,
    },
    admin: {
      host: input.admin?.host ?? "127.0.0.1",
      port: input.admin?.port ?? 8080,
      enabled: input.admin?.enabled ?? true,
    },
    apiKeys,
    cache: {
      backend: input.cache?.backend ?? "memory",
      redisUrl: input.cache?.redisUrl ?? process.env.RLF_REDIS_URL ?? "redis://127.0.0.1:6379",
      keyPrefix: input.cache?.keyPrefix ?? "rlf:cache:v1:",
      maxEntries: input.cache?.maxEntries ?? 10_000,
      maxBytes: input.cache?.maxBytes ?? 256 * 1024 * 1024,
    },
    maxBatchSize: input.maxBatchSize ?? 1_024,
    servers,
  };
}

const TOOL_POLICY_KEYS = ToolPolicyInput.keyof().options;

/** The tool-policy part of a combined tool + upstream policy object. */
function pickToolPolicy(p: ToolPolicyInput | undefined): ToolPolicyInput | undefined {
  if (!p) return undefined;
  return Object.fromEntries(TOOL_POLICY_KEYS.map((k) => [k, p[k]])) as ToolPolicyInput;
}

function toTransport(server: z.infer<typeof ServerInput>, baseDir: string): Transport {
  if ("command" in server) {
    return {
      kind: "stdio",
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: server.cwd ? (isAbsolute(server.cwd) ? server.cwd : resolve(baseDir, server.cwd)) : undefined,
    };
  }
  const kind = server.type === "sse" ? "sse" : "http";
  return { kind, url: server.url, headers: server.headers ?? {} };
}

/**
 * Parses config text by file extension: `.yaml`/`.yml` as YAML, `.json` as JSON,
 * `.pydata` (RL-Factory) as a Python literal list of `{'mcpServers': {...}}` blocks.
 */
export function parseConfigText(text: string, filename: string): unknown {
  const ext = extname(filename).toLowerCase();
  try {
    if (ext === ".yaml" || ext === ".yml") return parseYaml(text) ?? {};
    if (ext === ".pydata" || ext === ".py")
      return mergeMcpServerBlocks(JSON5.parse(pythonLiteralToJson5(text)));
    const value: unknown = JSON5.parse(text);
    return Array.isArray(value) ? mergeMcpServerBlocks(value) : value;
  } catch (err) {
    throw new ConfigError(`cannot parse ${filename}: ${(err as Error).message}`);
  }
}

/** Reads and normalises a config file; relative `cwd`s resolve against the file's directory. */
export function loadConfigFile(path: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read config ${path}: ${(err as Error).message}`);
  }
  return normaliseConfig(parseConfigText(text, path), dirname(resolve(path)));
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
