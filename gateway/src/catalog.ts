// The merged tool catalog: every upstream's tools under `server__tool` names, with the effective
// policy of each tool and its argument validator compiled once per tools/list (not per call).
import type { Tool } from "@modelcontextprotocol/client";
import { canonicalJson, sha256Hex } from "@rlfactory/kit";
import { UNAVAILABLE_META_KEY } from "@rlfactory/proto";
import {
  EPISODE_BATCH_TOOL,
  EPISODE_CREATE_TOOL,
  EPISODE_HANDLE_ARG,
  RESERVED_EPISODE_TOOLS,
} from "@rlfactory/proto/environment-contract";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Logger } from "pino";
import { mergeToolPolicy, type ServerConfig, type ToolPolicy } from "./config.ts";
import type { Upstream } from "./upstream.ts";

export const NAME_SEPARATOR = "__";
const VALID_TOOL_NAME = /^[a-zA-Z0-9._-]+$/;

/** A tool's policy after config and annotations are combined: no "auto", no undefined. */
export interface EffectivePolicy extends Omit<ToolPolicy, "cache" | "idempotent"> {
  cache: boolean;
  idempotent: boolean;
}

export interface CatalogEntry {
  /** `server__tool` */
  name: string;
  server: string;
  upstreamName: string;
  tool: Tool;
  /** Hash of the tool definition; part of the cache key. */
  schemaVersion: string;
  policy: EffectivePolicy;
  upstream: Upstream;
  /** Returns an error message when `args` fail the tool's input schema, else undefined. */
  validate(args: Record<string, unknown>): string | undefined;
  /** Set when the server lists the tool but cannot run it: why, and how to fix it. Calls answer UNAVAILABLE. */
  unavailable?: string;
  /**
   * A stateful tool of an environment server (docs/environments.md): it takes the episode handle
   * argument, which `tool` (what ListTools shows) and `validate` leave out; calls need an episode_id.
   */
  stateful: boolean;
  /** The per-episode instance's fixed arguments this tool takes (set by the gateway, hidden from `tool`). */
  fixed: string[];
}

export function gatewayToolName(server: string, tool: string): string {
  return `${server}${NAME_SEPARATOR}${tool}`;
}

/**
 * Effective policy: config wins; where config leaves a knob unset, MCP annotations decide.
 * `idempotent` defaults to `idempotentHint`; `cache: "auto"` caches tools that are both read-only
 * and idempotent; plain `cache` defaults to false (caching is opt-in).
 */
export function effectivePolicy(server: ServerConfig, tool: Tool): EffectivePolicy {
  const merged = mergeToolPolicy(server.toolPolicy, server.toolOverrides[tool.name]);
  const a = tool.annotations ?? {};
  const idempotent = merged.idempotent ?? a.idempotentHint === true;
  const cache = merged.cache === "auto" ? a.readOnlyHint === true && a.idempotentHint === true : merged.cache;
  return { ...merged, idempotent, cache };
}

export class Catalog {
  #entries = new Map<string, CatalogEntry>();
  #byServer = new Map<string, string[]>();
  #environments = new Set<string>();
  /** Environment servers that list `episode_batch`. */
  #batching = new Set<string>();
  #servers: Map<string, ServerConfig>;
  #ajv = addFormats.default(
    new Ajv2020({ strict: false, allErrors: false, validateSchema: false, logger: false }),
  );
  #log: Logger;
  #changeListeners = new Set<() => void>();

  constructor(servers: ServerConfig[], log: Logger) {
    this.#servers = new Map(servers.map((s) => [s.name, s]));
    this.#log = log.child({ component: "catalog" });
  }

  /** Follows an upstream's tool list from now on (initial list and every list_changed). */
  track(upstream: Upstream): void {
    this.refresh(upstream, upstream.tools());
    upstream.on("tools", (tools) => this.refresh(upstream, tools));
  }

  /** Calls `listener` after every refresh of a server's tools (the northbound MCP list_changed); returns its removal. */
  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  get(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** The server lists `episode_create`: an environment server, whose episodes the gateway manages. */
  isEnvironment(server: string): boolean {
    return this.#environments.has(server);
  }

  /** The environment server lists `episode_batch`: several calls on one episode go to it as one request. */
  batches(server: string): boolean {
    return this.#batching.has(server);
  }

  list(server?: string): CatalogEntry[] {
    const all = [...this.#entries.values()];
    return (server ? all.filter((e) => e.server === server) : all).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  refresh(upstream: Upstream, tools: readonly Tool[]): void {
    const server = this.#servers.get(upstream.name);
    if (!server) throw new Error(`no config for upstream ${upstream.name}`);
    for (const old of this.#byServer.get(server.name) ?? []) this.#entries.delete(old);
    const names: string[] = [];
    const environment = tools.some((t) => t.name === EPISODE_CREATE_TOOL);
    if (environment) this.#environments.add(server.name);
    else this.#environments.delete(server.name);
    if (environment && tools.some((t) => t.name === EPISODE_BATCH_TOOL)) this.#batching.add(server.name);
    else this.#batching.delete(server.name);
    for (const listed of tools) {
      // The reserved episode tools and the handle argument are the gateway's business, never the model's.
      if (environment && RESERVED_EPISODE_TOOLS.includes(listed.name)) continue;
      const stateful = environment && takesHandle(listed);
      const hidden = [
        ...(stateful ? [EPISODE_HANDLE_ARG] : []),
        ...Object.keys(server.isolation?.fixedArguments ?? {}),
      ];
      const tool = hidden.length > 0 ? withoutProperties(listed, hidden) : listed;
      if (server.include && !server.include.includes(tool.name)) continue;
      if (server.exclude.includes(tool.name)) continue;
      if (!VALID_TOOL_NAME.test(tool.name)) {
        this.#log.warn(
          { server: server.name, tool: tool.name },
          "skipping tool with a name outside [a-zA-Z0-9._-]",
        );
        continue;
      }
      const name = gatewayToolName(server.name, tool.name);
      const unavailable = tool._meta?.[UNAVAILABLE_META_KEY];
      this.#entries.set(name, {
        name,
        server: server.name,
        upstreamName: tool.name,
        tool,
        schemaVersion: sha256Hex(canonicalJson(tool)).slice(0, 16),
        policy: effectivePolicy(server, tool),
        upstream,
        validate: this.#compile(name, tool),
        ...(typeof unavailable === "string" ? { unavailable } : {}),
        stateful,
        fixed: Object.keys(server.isolation?.fixedArguments ?? {}).filter((k) => takesProperty(listed, k)),
      });
      names.push(name);
    }
    this.#byServer.set(server.name, names);
    for (const listener of this.#changeListeners) listener();
  }

  #compile(name: string, tool: Tool): (args: Record<string, unknown>) => string | undefined {
    let check: ValidateFunction;
    try {
      check = this.#ajv.compile(tool.inputSchema as object);
    } catch (err) {
      // A schema our validator cannot compile is left to the upstream to enforce.
      this.#log.warn(
        { tool: name, err: (err as Error).message },
        "input schema not compilable; not validated here",
      );
      return () => undefined;
    }
    return (args) =>
      check(args) ? undefined : this.#ajv.errorsText(check.errors, { dataVar: "arguments", separator: "; " });
  }
}

function takesHandle(tool: Tool): boolean {
  return takesProperty(tool, EPISODE_HANDLE_ARG);
}

function takesProperty(tool: Tool, name: string): boolean {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  return props !== undefined && Object.hasOwn(props, name);
}

/**
 * The tool as the model sees it: the arguments the gateway sets (the episode handle, a per-episode
 * instance's fixed arguments) gone from its input schema. A tool without them is left as it is.
 */
function withoutProperties(tool: Tool, names: readonly string[]): Tool {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  if (!names.some((n) => schema.properties && Object.hasOwn(schema.properties, n))) return tool;
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([k]) => !names.includes(k)),
  );
  const required = schema.required?.filter((r) => !names.includes(r));
  return {
    ...tool,
    inputSchema: { ...tool.inputSchema, properties, ...(required ? { required } : {}) },
  } as Tool;
}
