// The gateway as an MCP server (northbound): its merged catalog as MCP tools, plus reserved episode
// tools. One MCP protocol instance serves one transport (a stdio connection, a 2025-era HTTP session,
// or one 2026-07-28 request); see mcp-endpoint.ts for HTTP and `rlf gateway --mcp-stdio` for stdio.
//
// A tools/call takes the one request path every gRPC CallTool takes: a SERVER span continuing the
// caller's trace (`_meta.traceparent`) → Invoker.call (deadline, cache, single-flight, retry, breaker,
// bulkhead, output cap). A typed gateway error becomes an MCP tool error: `isError: true`, the text
// "CODE: message", and `structuredContent.error = {code, message}`.
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { extractTraceContext } from "@rlfactory/telemetry";
import type { Logger } from "pino";
import { z } from "zod";
import type { Catalog, CatalogEntry } from "./catalog.ts";
import type { Episodes } from "./episodes.ts";
import { GatewayError, isGatewayError, truncate } from "./errors.ts";
import type { Invoker } from "./invoker.ts";
import { toJsonContent } from "./json-content.ts";

const tracer = trace.getTracer("rlfactory-gateway");

/** `_meta` of a tools/call: the call's deadline in milliseconds (0 or absent: the tool's default). */
export const DEADLINE_META_KEY = "rlfactory/deadline_ms";
/** `_meta` of a tools/call: `"bypass"` skips the result cache for this call. */
export const CACHE_META_KEY = "rlfactory/cache";
/** `_meta` of a tools/call: the trajectory the call belongs to (logs, metrics, fair queues). */
export const TRAJECTORY_META_KEY = "rlfactory/trajectory_id";
/** The argument of a stateful environment tool naming the episode it runs in (from rlf_episode_start). */
export const EPISODE_ARG = "rlf_episode";

/**
 * Query parameters that bind an `/mcp` URL to one trajectory, so an unmodified MCP client runs in the
 * trajectory's episode (`rlf rollout agent` hands its agent `…/mcp?rlf_episode=ID&rlf_trajectory=ID`):
 * stateful tools are listed without the `rlf_episode` argument and called in the URL's episode, the
 * reserved episode tools are not listed (the rollout owns the episode), and calls carry the trajectory id
 * unless their `_meta` names one.
 */
export const EPISODE_QUERY = "rlf_episode";
export const TRAJECTORY_QUERY = "rlf_trajectory";

export const EPISODE_START_TOOL = "rlf_episode_start";
export const EPISODE_FORK_TOOL = "rlf_episode_fork";
export const EPISODE_SNAPSHOT_TOOL = "rlf_episode_snapshot";
export const EPISODE_END_TOOL = "rlf_episode_end";

export interface McpServerDeps {
  invoker: Invoker;
  catalog: Catalog;
  episodes: Episodes;
  log: Logger;
}

const CallMeta = z
  .looseObject({
    [DEADLINE_META_KEY]: z.number().int().min(0).optional(),
    [CACHE_META_KEY]: z.enum(["default", "bypass"]).optional(),
    [TRAJECTORY_META_KEY]: z.string().optional(),
  })
  .optional();

const EpisodeId = z.string().min(1);
const StartArgs = z
  .object({
    server: z.string().min(1),
    config: z.record(z.string(), z.unknown()).optional(),
    ttl_ms: z.number().int().min(0).max(4_294_967_295).optional(),
  })
  .strict();
const ForkArgs = z.object({ episode_id: EpisodeId, count: z.number().int().min(1) }).strict();
const IdArgs = z.object({ episode_id: EpisodeId }).strict();

const idSchema = { type: "string", description: "An episode id from rlf_episode_start or rlf_episode_fork." };

/** The reserved episode tools (docs/mcp.md): the same operations as gRPC Start/Fork/Snapshot/EndEpisode. */
const EPISODE_TOOLS: Tool[] = [
  {
    name: EPISODE_START_TOOL,
    description: `Starts an episode on an environment server; pass the returned episode_id as \`${EPISODE_ARG}\` to that server's tools.`,
    inputSchema: {
      type: "object",
      properties: {
        server: { type: "string", description: "The environment server's name in the gateway config." },
        config: { type: "object", description: "The environment's episode config." },
        ttl_ms: { type: "integer", minimum: 0, description: "Idle time after which the episode expires." },
      },
      required: ["server"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { episode_id: { type: "string" } },
      required: ["episode_id"],
    },
  },
  {
    name: EPISODE_FORK_TOOL,
    description: "Copies an episode's state into `count` new episodes.",
    inputSchema: {
      type: "object",
      properties: { episode_id: idSchema, count: { type: "integer", minimum: 1 } },
      required: ["episode_id", "count"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { episode_ids: { type: "array", items: { type: "string" } } },
      required: ["episode_ids"],
    },
  },
  {
    name: EPISODE_SNAPSHOT_TOOL,
    description: "The episode's current state, as the environment reports it.",
    inputSchema: {
      type: "object",
      properties: { episode_id: idSchema },
      required: ["episode_id"],
      additionalProperties: false,
    },
  },
  {
    name: EPISODE_END_TOOL,
    description: "Ends the episode and returns its final state.",
    inputSchema: {
      type: "object",
      properties: { episode_id: idSchema },
      required: ["episode_id"],
      additionalProperties: false,
    },
  },
];

/** One MCP protocol instance over the gateway's catalog, invoker and episodes. */
export function createGatewayMcpServer(deps: McpServerDeps): Server {
  const server = new Server(
    { name: "rlfactory-gateway", version: "0.1.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler("tools/list", (_request, ctx) => {
    const bound = urlBinding(ctx.http?.req);
    return bound.episode === undefined
      ? { tools: [...deps.catalog.list().map((e) => toMcpTool(e)), ...EPISODE_TOOLS] }
      : { tools: deps.catalog.list().map((e) => toMcpTool(e, true)) };
  });
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const bound = urlBinding(ctx.http?.req);
    const { name, _meta: rawMeta } = request.params;
    let args = request.params.arguments ?? {};
    let meta = rawMeta;
    if (bound.episode !== undefined && deps.catalog.get(name)?.stateful === true)
      args = { ...args, [EPISODE_ARG]: bound.episode };
    if (
      bound.trajectory !== undefined &&
      (meta as Record<string, unknown> | undefined)?.[TRAJECTORY_META_KEY] === undefined
    )
      meta = { ...meta, [TRAJECTORY_META_KEY]: bound.trajectory };
    const parent = extractTraceContext(meta as Record<string, unknown> | undefined);
    return tracer.startActiveSpan(
      `tools/call ${truncate(name)}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": name,
          "gen_ai.operation.name": "execute_tool",
          "jsonrpc.request.id": String(ctx.mcpReq.id),
        },
      },
      parent,
      async (span) => {
        try {
          const spanCtx = trace.setSpan(parent, span);
          const result = EPISODE_TOOLS.some((t) => t.name === name)
            ? await episodeTool(deps, name, args, spanCtx)
            : await catalogTool(
                deps,
                name,
                args,
                meta,
                String(ctx.mcpReq.id),
                ctx.mcpReq.signal,
                spanCtx,
                span,
              );
          if (result.isError) span.setStatus({ code: SpanStatusCode.ERROR });
          return result;
        } finally {
          span.end();
        }
      },
    );
  });
  server.onerror = (error) => deps.log.warn({ err: error }, "mcp (northbound) protocol error");
  return server;
}

/** The trajectory binding of an `/mcp` URL (its `rlf_episode` and `rlf_trajectory` query parameters). */
function urlBinding(req: Request | undefined): { episode?: string; trajectory?: string } {
  if (req === undefined) return {};
  let query: URLSearchParams;
  try {
    query = new URL(req.url).searchParams;
  } catch {
    return {};
  }
  const episode = query.get(EPISODE_QUERY) || undefined;
  const trajectory = query.get(TRAJECTORY_QUERY) || undefined;
  return { ...(episode && { episode }), ...(trajectory && { trajectory }) };
}

/**
 * A catalog entry as an MCP tool: the gateway's name; stateful tools take the episode argument, unless
 * the URL binds the episode (`bound`).
 */
function toMcpTool(e: CatalogEntry, bound = false): Tool {
  const { name: _upstreamName, ...tool } = e.tool;
  if (!e.stateful || bound) return { ...tool, name: e.name } as Tool;
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  return {
    ...tool,
    name: e.name,
    inputSchema: {
      ...schema,
      type: "object",
      properties: { ...schema.properties, [EPISODE_ARG]: idSchema },
      required: [...(schema.required ?? []), EPISODE_ARG],
    },
  } as Tool;
}

async function catalogTool(
  deps: McpServerDeps,
  name: string,
  rawArgs: Record<string, unknown>,
  rawMeta: unknown,
  callId: string,
  signal: AbortSignal,
  ctx: Context,
  span: Span,
): Promise<CallToolResult> {
  const meta = CallMeta.safeParse(rawMeta);
  if (!meta.success)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `_meta: ${z.prettifyError(meta.error)}`);
  const { [EPISODE_ARG]: episode, ...args } = rawArgs;
  if (episode !== undefined && typeof episode !== "string")
    return toolError(new GatewayError("INVALID_ARGUMENTS", `${EPISODE_ARG} must be an episode id string`));
  const outcome = await deps.invoker.call(
    {
      name,
      argumentsJson: "",
      argumentsValue: args,
      deadlineMs: meta.data?.[DEADLINE_META_KEY] ?? 0,
      trajectoryId: meta.data?.[TRAJECTORY_META_KEY] ?? "",
      bypassCache: meta.data?.[CACHE_META_KEY] === "bypass",
      callId,
      episodeId: episode ?? "",
      signal,
    },
    ctx,
    span,
  );
  if (outcome.error) return toolError(outcome.error);
  const out = outcome.output;
  return {
    content: (out?.content ?? []).map(toJsonContent) as CallToolResult["content"],
    ...(out?.structuredContentJson ? { structuredContent: JSON.parse(out.structuredContentJson) } : {}),
    ...(out?.isError ? { isError: true } : {}),
    _meta: { "rlfactory/cache_hit": outcome.cacheHit, "rlfactory/attempts": outcome.attempts },
  };
}

async function episodeTool(
  deps: McpServerDeps,
  name: string,
  args: Record<string, unknown>,
  ctx: Context,
): Promise<CallToolResult> {
  try {
    const structured = await runEpisodeTool(deps.episodes, name, args, ctx);
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    if (isGatewayError(err) && err.code !== "INTERNAL") return toolError(err);
    deps.log.error({ err, tool: name }, "internal gateway error");
    return toolError(new GatewayError("INTERNAL", "internal gateway error"));
  }
}

async function runEpisodeTool(
  episodes: Episodes,
  name: string,
  args: Record<string, unknown>,
  ctx: Context,
): Promise<Record<string, unknown>> {
  const parse = <T>(schema: z.ZodType<T>): T => {
    const parsed = schema.safeParse(args);
    if (!parsed.success) throw new GatewayError("INVALID_ARGUMENTS", z.prettifyError(parsed.error));
    return parsed.data;
  };
  switch (name) {
    case EPISODE_START_TOOL: {
      const a = parse(StartArgs);
      return { episode_id: await episodes.start(a.server, { value: a.config ?? {} }, a.ttl_ms ?? 0, ctx) };
    }
    case EPISODE_FORK_TOOL: {
      const a = parse(ForkArgs);
      return { episode_ids: await episodes.fork(a.episode_id, a.count, ctx) };
    }
    case EPISODE_SNAPSHOT_TOOL:
      return { state: JSON.parse(await episodes.snapshot(parse(IdArgs).episode_id, ctx)) as unknown };
    default:
      return { state: JSON.parse(await episodes.end(parse(IdArgs).episode_id, ctx)) as unknown };
  }
}

/** A typed gateway error as an MCP tool error. */
function toolError(err: GatewayError): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${err.code}: ${err.message}` }],
    structuredContent: { error: { code: err.code, message: err.message } },
  };
}
