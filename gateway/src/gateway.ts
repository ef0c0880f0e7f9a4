// Wires the gateway together: upstreams (MCP servers, model servers, agent servers) → catalog → policies → invoker → gRPC + admin HTTP.
import type { Logger } from "pino";
import { pino } from "pino";
import { buildAdminApp } from "./admin.ts";
import { AgentUpstream } from "./agent-upstream.ts";
import { ApiKeyAuth, describeAuthMode } from "./auth.ts";
import { createResultCache, type ResultCache } from "./cache.ts";
import { CallLog } from "./call-log.ts";
import { Catalog } from "./catalog.ts";
import type { GatewayConfig } from "./config.ts";
import { Episodes } from "./episodes.ts";
import { type GrpcServerHandle, startGrpcServer } from "./grpc-server.ts";
import { InstancePool } from "./instance-pool.ts";
import { Invoker } from "./invoker.ts";
import { createMcpEndpoint, type McpEndpoint, serveMcpStdio } from "./mcp-endpoint.ts";
import { createMetrics } from "./metrics.ts";
import { ModelUpstream } from "./model-upstream.ts";
import { UpstreamPolicies } from "./policies.ts";
import { GATEWAY_SERVICE } from "./proto.ts";
import { createUpstream, type Upstream } from "./upstream.ts";

export interface GatewayHandle {
  grpcPort: number;
  /** `host:port` for gRPC clients. */
  grpcAddress: string;
  /** Base URL of the admin HTTP surface, or undefined when disabled. */
  adminUrl: string | undefined;
  catalog: Catalog;
  invoker: Invoker;
  episodes: Episodes;
  upstreams: readonly Upstream[];
  cache: ResultCache;
  /** Serves the gateway's MCP server on this process's stdin/stdout until stdin closes. */
  serveMcpStdio(): Promise<void>;
  /** Resolves when every upstream is ready, or rejects after timeoutMs naming the ones that are not. */
  waitReady(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(
  config: GatewayConfig,
  opts: {
    log?: Logger /** Default logger on stderr (stdout carries `--mcp-stdio`). */;
    logToStderr?: boolean;
  } = {},
): Promise<GatewayHandle> {
  const logOptions = { name: "rlf-gateway", level: process.env.LOG_LEVEL ?? "info" };
  const log =
    opts.log ??
    (opts.logToStderr ? pino(logOptions, pino.destination({ dest: 2, sync: true })) : pino(logOptions));
  const cache = await createResultCache(config.cache, log);
  // A server run as one process per episode is its instance pool (instance-pool.ts).
  // A model server's tools are prompt templates over a chat endpoint (model-upstream.ts).
  // An agent server's tools run sub-agents over the gateway's own tools (agent-upstream.ts).
  const upstreams: Upstream[] = config.servers.map((s) =>
    s.isolation
      ? new InstancePool(s, log)
      : s.transport.kind === "model"
        ? new ModelUpstream(s, log)
        : s.transport.kind === "agent"
          ? new AgentUpstream(s, log)
          : createUpstream(s, log),
  );
  const policies = new Map(config.servers.map((s) => [s.name, new UpstreamPolicies(s.upstream)]));
  for (const [server, p] of policies) {
    p.breaker.onStateChange((state) =>
      log.warn({ server, breaker: p.breakerState, state }, "circuit breaker state"),
    );
  }
  const catalog = new Catalog(config.servers, log);
  for (const u of upstreams) catalog.track(u);
  // Before the upstreams start: it follows each stdio server's process generation from the first spawn.
  const episodes = new Episodes(config.servers, upstreams, catalog, log);
  const invoker = new Invoker(catalog, cache, policies, log, episodes);
  // A sub-agent's tool calls take the request path every caller's take (policies, spans, metrics).
  for (const u of upstreams) {
    if (!(u instanceof AgentUpstream)) continue;
    u.attach({
      tool: (name) => {
        const entry = catalog.get(name);
        return entry ? { server: entry.server, tool: entry.tool } : undefined;
      },
      call: (req, ctx, span) => invoker.call(req, ctx, span),
    });
  }
  const metrics = createMetrics({ invoker, catalog, upstreams, policies, episodes });
  // Subscribes like the metrics: the request path does not know it exists.
  const callLog = new CallLog(config.callLog);
  invoker.on("call", (outcome, req) => callLog.record(outcome, req));
  const auth = new ApiKeyAuth(config.apiKeys);
  log.info({ auth: auth.enabled ? "api_keys" : "off" }, describeAuthMode(config));

  // Connect to every upstream in parallel; one that fails keeps retrying in the background.
  await Promise.all(upstreams.map((u) => u.start()));

  let grpc: GrpcServerHandle | undefined;
  let admin: ReturnType<typeof buildAdminApp> | undefined;
  let mcp: McpEndpoint | undefined;
  try {
    grpc = await startGrpcServer(
      { invoker, catalog, episodes, auth, maxBatchSize: config.maxBatchSize, log },
      config.grpc,
    );
    let adminUrl: string | undefined;
    if (config.admin.enabled) {
      mcp = createMcpEndpoint({ invoker, catalog, episodes, auth, log, host: config.admin.host });
      admin = buildAdminApp({
        mcp,
        callLog,
        invoker,
        catalog,
        episodes,
        upstreams,
        policies,
        metrics,
        auth,
        log,
        bodyLimitBytes: config.grpc.maxMessageBytes,
      });
      await admin.listen({ host: config.admin.host, port: config.admin.port });
      const address = admin.server.address();
      const port = typeof address === "object" && address ? address.port : config.admin.port;
      adminUrl = `http://${hostForUrl(config.admin.host)}:${port}`;
    }
    grpc.health.setStatus("", "SERVING");
    grpc.health.setStatus(GATEWAY_SERVICE, "SERVING");
    const grpcAddress = `${hostForUrl(config.grpc.host)}:${grpc.port}`;
    log.info({ grpc: grpcAddress, admin: adminUrl, servers: upstreams.length }, "gateway listening");

    const started = grpc;
    const startedAdmin = admin;
    const startedMcp = mcp;
    return {
      grpcPort: grpc.port,
      grpcAddress,
      adminUrl,
      catalog,
      invoker,
      episodes,
      upstreams,
      cache,
      serveMcpStdio: () => serveMcpStdio({ invoker, catalog, episodes, log }),
      waitReady: (timeoutMs = 30_000) => waitReady(upstreams, timeoutMs),
      async close() {
        started.health.setStatus("", "NOT_SERVING");
        started.health.setStatus(GATEWAY_SERVICE, "NOT_SERVING");
        await Promise.all([started.close(), startedMcp?.close(), startedAdmin?.close()]);
        episodes.close();
        await Promise.all(upstreams.map((u) => u.close()));
        await cache.close();
      },
    };
  } catch (err) {
    await grpc?.close(0);
    await mcp?.close();
    await admin?.close();
    episodes.close();
    await Promise.all(upstreams.map((u) => u.close()));
    await cache.close();
    throw err;
  }
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

async function waitReady(upstreams: readonly Upstream[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (upstreams.every((u) => u.state === "ready")) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  const notReady = upstreams
    .filter((u) => u.state !== "ready")
    .map((u) => `${u.name} (${u.state}: ${u.detail})`);
  throw new Error(`upstreams not ready after ${timeoutMs} ms: ${notReady.join(", ")}`);
}
