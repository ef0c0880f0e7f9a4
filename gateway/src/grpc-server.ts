// The gRPC surface: rlfactory.v1.ToolGateway, grpc.health.v1 and server reflection (grpcurl works).
//
// Each handler: authenticate → open a SERVER span continuing the caller's trace (gRPC metadata) →
// hand the call(s) to the invoker → encode. Per-call failures travel inside ToolResult; only request-
// level problems (auth, batch size) become gRPC status errors.
import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type CallerGone, callerGone, type GrpcHost, startGrpcHost } from "@rlfactory/kit";
import type { CallToolsRequest__Output } from "@rlfactory/proto/types/CallToolsRequest";
import type { CallToolsResponse } from "@rlfactory/proto/types/CallToolsResponse";
import type { EndEpisodeRequest__Output } from "@rlfactory/proto/types/EndEpisodeRequest";
import type { ForkEpisodeRequest__Output } from "@rlfactory/proto/types/ForkEpisodeRequest";
import type { ListToolsRequest__Output } from "@rlfactory/proto/types/ListToolsRequest";
import type { ListToolsResponse } from "@rlfactory/proto/types/ListToolsResponse";
import type { SnapshotEpisodeRequest__Output } from "@rlfactory/proto/types/SnapshotEpisodeRequest";
import type { StartEpisodeRequest__Output } from "@rlfactory/proto/types/StartEpisodeRequest";
import type { Tool } from "@rlfactory/proto/types/Tool";
import type { ToolCall__Output } from "@rlfactory/proto/types/ToolCall";
import type { ToolGatewayHandlers } from "@rlfactory/proto/types/ToolGateway";
import type { ToolResult } from "@rlfactory/proto/types/ToolResult";
import { contextFromGrpcMetadata } from "@rlfactory/telemetry";
import type { Logger } from "pino";
import type { ApiKeyAuth } from "./auth.ts";
import { runCallToolsBatch, toCallRequest, toWireResult } from "./call-tools-batch.ts";
import { CallToolsStreams, serveCallToolsStream } from "./call-tools-stream.ts";
import type { Catalog, CatalogEntry } from "./catalog.ts";
import type { Episodes } from "./episodes.ts";
import { grpcStatusFor, isGatewayError } from "./errors.ts";
import type { Invoker } from "./invoker.ts";
import { GATEWAY_SERVICE, loadGatewayProto } from "./proto.ts";
import { authorizationOf, rpcError, UNAUTHENTICATED_DETAILS, wireError } from "./rpc-error.ts";

const tracer = trace.getTracer("rlfactory-gateway");

export interface GrpcDeps {
  invoker: Invoker;
  catalog: Catalog;
  episodes: Episodes;
  auth: ApiKeyAuth;
  maxBatchSize: number;
  /** Where an INTERNAL's cause (error and stack) goes: the caller sees only "internal gateway error". */
  log?: Logger;
}

export type GrpcServerHandle = GrpcHost;

export async function startGrpcServer(
  deps: GrpcDeps,
  opts: { host: string; port: number; maxMessageBytes: number },
): Promise<GrpcServerHandle> {
  const { definition, grpc } = loadGatewayProto();
  const streams = new CallToolsStreams();
  const host = await startGrpcHost({
    definition,
    serviceName: GATEWAY_SERVICE,
    addServices: (server) =>
      server.addService(grpc.rlfactory.v1.ToolGateway.service, toolGatewayHandlers(deps, streams)),
    ...opts,
  });
  return {
    ...host,
    close: (graceMs) => {
      streams.drain();
      return host.close(graceMs);
    },
  };
}

function toolGatewayHandlers(deps: GrpcDeps, streams: CallToolsStreams): ToolGatewayHandlers {
  return {
    ListTools: (call, callback) =>
      handle(deps, call, callback, "ListTools", async (): Promise<ListToolsResponse> => {
        const req = call.request as ListToolsRequest__Output;
        return { tools: deps.catalog.list(req.server || undefined).map(toWireTool) };
      }),

    CallTool: (call, callback) =>
      handle(deps, call, callback, "CallTool", async (ctx, span, rpc): Promise<ToolResult> => {
        const req = toCallRequest(call.request as ToolCall__Output, rpc);
        return toWireResult(await deps.invoker.call(req, ctx, span));
      }),

    CallTools: (call, callback) =>
      handle(
        deps,
        call,
        callback,
        "CallTools",
        async (ctx, _span, rpc): Promise<CallToolsResponse> => ({
          results: await runCallToolsBatch(deps, call.request as CallToolsRequest__Output, ctx, rpc),
        }),
      ),

    CallToolsStream: (call) => serveCallToolsStream(deps, streams, call),

    StartEpisode: (call, callback) =>
      handle(deps, call, callback, "StartEpisode", async (ctx) => {
        const req = call.request as StartEpisodeRequest__Output;
        return {
          episode_id: await episodeOp(() =>
            deps.episodes.start(req.server, req.config_json, req.ttl_ms, ctx),
          ),
        };
      }),

    ForkEpisode: (call, callback) =>
      handle(deps, call, callback, "ForkEpisode", async (ctx) => {
        const req = call.request as ForkEpisodeRequest__Output;
        return { episode_ids: await episodeOp(() => deps.episodes.fork(req.episode_id, req.count, ctx)) };
      }),

    SnapshotEpisode: (call, callback) =>
      handle(deps, call, callback, "SnapshotEpisode", async (ctx) => {
        const req = call.request as SnapshotEpisodeRequest__Output;
        return { state_json: await episodeOp(() => deps.episodes.snapshot(req.episode_id, ctx)) };
      }),

    EndEpisode: (call, callback) =>
      handle(deps, call, callback, "EndEpisode", async (ctx) => {
        const req = call.request as EndEpisodeRequest__Output;
        return { state_json: await episodeOp(() => deps.episodes.end(req.episode_id, ctx)) };
      }),
  };
}

/** An episode operation's typed failure as a gRPC status whose details start with the ErrorCode name. */
async function episodeOp<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (!isGatewayError(err) || err.code === "INTERNAL") throw err;
    throw rpcError(grpcStatusFor(err.code), `${err.code}: ${err.message}`);
  }
}

/** Auth + server span + error mapping shared by every unary handler. */
function handle<Req, Res>(
  deps: GrpcDeps,
  call: ServerUnaryCall<Req, Res>,
  callback: sendUnaryData<Res>,
  method: string,
  body: (ctx: Context, span: Span, rpc: CallerGone) => Promise<Res>,
): void {
  if (!deps.auth.check(authorizationOf(call.metadata))) {
    callback(rpcError(status.UNAUTHENTICATED, UNAUTHENTICATED_DETAILS));
    return;
  }
  const parent = contextFromGrpcMetadata(call.metadata);
  const span = tracer.startSpan(
    `${GATEWAY_SERVICE}/${method}`,
    {
      kind: SpanKind.SERVER,
      attributes: { "rpc.system": "grpc", "rpc.service": GATEWAY_SERVICE, "rpc.method": method },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  const rpc = callerGone(call);
  context
    .with(ctx, () => body(ctx, span, rpc))
    .then(
      (res) => callback(null, res),
      (err: unknown) => {
        const e = wireError(err, method, deps.log);
        span.setStatus({ code: SpanStatusCode.ERROR, message: e.details });
        callback(e);
      },
    )
    .finally(() => {
      rpc.done();
      span.end();
    });
}

export function toWireTool(e: CatalogEntry): Tool {
  const a = e.tool.annotations;
  return {
    name: e.name,
    server: e.server,
    upstream_name: e.upstreamName,
    title: e.tool.title ?? a?.title ?? "",
    description: e.tool.description ?? "",
    input_schema_json: JSON.stringify(e.tool.inputSchema),
    output_schema_json: e.tool.outputSchema ? JSON.stringify(e.tool.outputSchema) : "",
    annotations: {
      ...(a?.readOnlyHint !== undefined ? { read_only_hint: a.readOnlyHint } : {}),
      ...(a?.destructiveHint !== undefined ? { destructive_hint: a.destructiveHint } : {}),
      ...(a?.idempotentHint !== undefined ? { idempotent_hint: a.idempotentHint } : {}),
      ...(a?.openWorldHint !== undefined ? { open_world_hint: a.openWorldHint } : {}),
    },
    cacheable: e.policy.cache,
    idempotent: e.policy.idempotent,
    schema_version: e.schemaVersion,
  };
}
