// Declaring an environment: tools over per-episode state, served by the same tool-server framework
// (stdio + Streamable HTTP) as any tool server. On the wire it stays plain MCP (docs/environments.md):
// the reserved tools episode_create / episode_fork / episode_snapshot / episode_close manage episodes
// (episode_batch runs several calls on one episode in one request),
// and every stateful tool takes the episode's handle in its `episode` argument.
import {
  EPISODE_CLOSE_TOOL,
  EPISODE_CREATE_TOOL,
  EPISODE_FORK_TOOL,
  EPISODE_HANDLE_ARG,
  EPISODE_SNAPSHOT_TOOL,
  RESERVED_EPISODE_TOOLS,
  STATE_TOO_LARGE_PREFIX,
} from "@rlfactory/proto/environment-contract";
import { z } from "zod";
import {
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolHints,
  type ToolReturn,
  type ToolSpec,
} from "./define-tool.ts";
import { episodeBatchTool } from "./episode-batch-tool.ts";
import { type EpisodeLimits, EpisodeStore } from "./episode-store.ts";
import { ToolError } from "./tool-error.ts";

type AnyObject = z.ZodObject;

/** A stateful tool: like defineTool's spec, but the handler also gets the episode's state. */
export interface EnvironmentToolSpec<S, I extends AnyObject, O extends AnyObject | undefined>
  extends Omit<ToolSpec<I, O>, "handler" | "unavailable"> {
  handler: (args: z.output<I>, state: S, ctx: ToolContext) => Promise<ToolReturn<O>>;
}

/**
 * A stateful tool whose input schema is JSON Schema from elsewhere (an environment whose state lives
 * in another process or language, which checks the arguments itself). The handler gets the arguments
 * as sent, without the handle.
 */
export interface JsonSchemaEnvironmentToolSpec<S> {
  name: string;
  description: string;
  /** An object schema; the `episode` property is added to it on the wire. */
  inputSchema: Record<string, unknown>;
  annotations?: ToolHints;
  handler: (args: Record<string, unknown>, state: S, ctx: ToolContext) => Promise<ToolReturn<undefined>>;
}

export type JsonSchemaEnvironmentToolBuilder<S> = (spec: JsonSchemaEnvironmentToolSpec<S>) => ToolDefinition;

/** Builds one stateful tool of an environment whose state is `S` (argument types inferred from `input`). */
export type EnvironmentToolBuilder<S> = <I extends AnyObject, O extends AnyObject | undefined = undefined>(
  spec: EnvironmentToolSpec<S, I, O>,
) => ToolDefinition;

export interface EnvironmentSpec<S> extends EpisodeLimits {
  /** The server's name (what the gateway config names it is up to the operator). */
  name: string;
  /**
   * The stateful tools: `tools: (tool) => [tool({...}), ...]` (`jsonTool` for JSON-Schema inputs).
   * Each gains the `episode` argument on the wire.
   */
  tools: (
    tool: EnvironmentToolBuilder<S>,
    jsonTool: JsonSchemaEnvironmentToolBuilder<S>,
  ) => readonly ToolDefinition[];
  /** A new episode's state from the caller's config (`StartEpisode.config_json`). */
  create(config: Record<string, unknown>): S | Promise<S>;
  /** An independent copy of `state` (later changes to either never show in the other). */
  fork(state: S): S | Promise<S>;
  /** The state as JSON-serialisable data (SnapshotEpisode, and EndEpisode's final state). */
  snapshot(state: S): unknown;
  /**
   * `count` independent copies at once (default: `fork` `count` times). For state that lives elsewhere
   * (`S` a reference to it), where one request can copy many times.
   */
  forkMany?(state: S, count: number): Promise<S[]>;
  /** The final state, releasing the episode (default: `snapshot`). For state that lives elsewhere. */
  close?(state: S): unknown;
  /** Releases an episode dropped without `episode_close` (idle expiry, `Environment.close()`). */
  drop?(state: S): void;
}

export interface Environment {
  readonly name: string;
  /** The reserved episode tools, then the stateful tools: pass them to createToolServer. */
  readonly tools: readonly ToolDefinition[];
  /** Episodes held now. */
  liveEpisodes(): number;
  /** Drops every episode (tests, shutdown). */
  close(): void;
}

const Handle = z.string().min(1).describe("The episode handle (from episode_create or episode_fork)");
/** The handle's JSON Schema, as a property of a JSON-Schema tool's input. */
const { $schema: _dialect, ...HANDLE_JSON_SCHEMA } = z.toJSONSchema(Handle) as Record<string, unknown>;

export function defineEnvironment<S>(spec: EnvironmentSpec<S>): Environment {
  const store = new EpisodeStore<S>(
    {
      ...(spec.maxEpisodes !== undefined ? { maxEpisodes: spec.maxEpisodes } : {}),
      ...(spec.idleTimeoutMs !== undefined ? { idleTimeoutMs: spec.idleTimeoutMs } : {}),
      ...(spec.maxSnapshotBytes !== undefined ? { maxSnapshotBytes: spec.maxSnapshotBytes } : {}),
      ...(spec.pipeline !== undefined ? { pipeline: spec.pipeline } : {}),
    },
    spec.drop?.bind(spec),
  );
  const checkName = (name: string) => {
    if (RESERVED_EPISODE_TOOLS.includes(name))
      throw new Error(`tool name ${name} is reserved for episode management`);
  };
  const tool: EnvironmentToolBuilder<S> = (t) => {
    checkName(t.name);
    if (EPISODE_HANDLE_ARG in t.input.shape)
      throw new Error(
        `tool ${t.name}: the argument "${EPISODE_HANDLE_ARG}" is reserved for the episode handle`,
      );
    const { handler, input, ...rest } = t;
    return defineTool({
      ...rest,
      input: input.extend({ [EPISODE_HANDLE_ARG]: Handle }),
      handler: async (args: Record<string, unknown>, ctx) => {
        const { [EPISODE_HANDLE_ARG]: handle, ...own } = args;
        return store.run(handle as string, (state) => handler(own as z.output<typeof input>, state, ctx));
      },
    } as ToolSpec<AnyObject, AnyObject | undefined>);
  };
  const jsonTool: JsonSchemaEnvironmentToolBuilder<S> = (t) => {
    checkName(t.name);
    const properties = (t.inputSchema.properties ?? {}) as Record<string, unknown>;
    if (EPISODE_HANDLE_ARG in properties)
      throw new Error(
        `tool ${t.name}: the argument "${EPISODE_HANDLE_ARG}" is reserved for the episode handle`,
      );
    const required = Array.isArray(t.inputSchema.required) ? (t.inputSchema.required as string[]) : [];
    const { handler, inputSchema, ...rest } = t;
    return defineTool({
      ...rest,
      input: z.looseObject({ [EPISODE_HANDLE_ARG]: Handle }),
      inputJsonSchema: {
        ...inputSchema,
        type: "object",
        properties: { ...properties, [EPISODE_HANDLE_ARG]: HANDLE_JSON_SCHEMA },
        required: [...required, EPISODE_HANDLE_ARG],
      },
      handler: async (args: Record<string, unknown>, ctx) => {
        const { [EPISODE_HANDLE_ARG]: handle, ...own } = args;
        return store.run(handle as string, (state) => handler(own, state, ctx));
      },
    });
  };
  const stateful = spec.tools(tool, jsonTool);

  const reserved = [
    defineTool({
      name: EPISODE_CREATE_TOOL,
      description: "Starts an episode from a config; answers {episode: HANDLE}",
      input: z.object({ config: z.record(z.string(), z.unknown()).default({}) }),
      handler: async ({ config }) => {
        const release = store.reserve(1);
        try {
          return { [EPISODE_HANDLE_ARG]: store.add(await spec.create(config), true) };
        } finally {
          release();
        }
      },
    }),
    defineTool({
      name: EPISODE_FORK_TOOL,
      description: "Copies an episode's current state count times; answers {episodes: [HANDLE, ...]}",
      input: z.object({ [EPISODE_HANDLE_ARG]: Handle, count: z.number().int().min(1).default(1) }),
      handler: async (args) => {
        const { count } = args;
        const release = store.reserve(count);
        try {
          const copies = await store.run(args[EPISODE_HANDLE_ARG], async (state) => {
            if (spec.forkMany) return spec.forkMany(state, count);
            const out: S[] = [];
            for (let i = 0; i < count; i++) out.push(await spec.fork(state));
            return out;
          });
          return { episodes: copies.map((s) => store.add(s, true)) };
        } finally {
          release();
        }
      },
    }),
    defineTool({
      name: EPISODE_SNAPSHOT_TOOL,
      description: "An episode's current state; answers {state}",
      input: z.object({ [EPISODE_HANDLE_ARG]: Handle }),
      handler: async (args) => {
        const state = await store.run(args[EPISODE_HANDLE_ARG], (s) => spec.snapshot(s));
        // bounded: many large snapshots at once must not grow the server without limit
        const bytes = Buffer.byteLength(JSON.stringify(state ?? null) ?? "null", "utf8");
        const limit = store.limits.maxSnapshotBytes;
        if (bytes > limit)
          throw new ToolError(
            `${STATE_TOO_LARGE_PREFIX}: ${bytes} bytes; the limit is ${limit} (maxSnapshotBytes)`,
          );
        return { state };
      },
    }),
    defineTool({
      name: EPISODE_CLOSE_TOOL,
      description: "Ends an episode; answers {state} (its final state)",
      input: z.object({ [EPISODE_HANDLE_ARG]: Handle }),
      handler: async (args) => ({
        state: await store.close(args[EPISODE_HANDLE_ARG], (s) =>
          (spec.close ?? spec.snapshot).call(spec, s),
        ),
      }),
    }),
    episodeBatchTool(stateful, Handle, store.limits.pipeline),
  ];

  return {
    name: spec.name,
    tools: [...reserved, ...stateful],
    liveEpisodes: () => store.size,
    close: () => store.clear(),
  };
}
