// Typed errors on both surfaces, in-process: real gRPC over loopback and the admin app (fastify inject)
// in front of one Invoker whose upstream is an in-memory fake. Deeply nested arguments, an INTERNAL's
// cause in the log, and the framework's own admin errors in the documented body.
import { EventEmitter } from "node:events";
import { Agent, request } from "node:http";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { GatewayClient } from "@rlfactory/clients";
import { createMemoryStore } from "@rlfactory/kit";
import { pino } from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAdminApp } from "./admin.ts";
import { exceedsDepth } from "./argument-depth.ts";
import { ApiKeyAuth } from "./auth.ts";
import { ResultCache } from "./cache.ts";
import { Catalog } from "./catalog.ts";
import { normaliseConfig } from "./config.ts";
import { Episodes } from "./episodes.ts";
import { type GrpcServerHandle, startGrpcServer } from "./grpc-server.ts";
import { Invoker } from "./invoker.ts";
import { UpstreamPolicies } from "./policies.ts";
import type { Upstream, UpstreamState } from "./upstream.ts";

type Handler = (args: Record<string, unknown>) => Promise<CallToolResult>;

class FakeUpstream extends EventEmitter implements Upstream {
  state: UpstreamState = "ready";
  detail = "";
  calls = 0;
  readonly name = "s";
  readonly toolList: Tool[];
  readonly handlers: Record<string, Handler>;
  constructor(toolList: Tool[], handlers: Record<string, Handler>) {
    super();
    this.toolList = toolList;
    this.handlers = handlers;
  }
  tools() {
    return this.toolList;
  }
  async callTool(name: string, args: Record<string, unknown>) {
    this.calls++;
    return this.handlers[name]!(args);
  }
  async start() {}
  async close() {}
}

const LIMIT = 64;
/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nestedJson = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${"}".repeat(levels - 1)}`;
const echo: Handler = async (args) => ({
  content: [{ type: "text", text: JSON.stringify(args).slice(0, 50) }],
});

const config = normaliseConfig({ servers: { s: { command: "unused" } } });
const upstream = new FakeUpstream(
  [
    { name: "echo", inputSchema: { type: "object" } },
    { name: "broken", inputSchema: { type: "object" } },
  ],
  {
    echo,
    broken: async () => {
      throw new Error("fake upstream bug: undefined is not a function");
    },
  },
);
const logged: Record<string, unknown>[] = [];
const log = pino({ level: "error" }, { write: (line: string) => logged.push(JSON.parse(line)) });
const catalog = new Catalog(config.servers, pino({ level: "silent" }));
catalog.track(upstream);
const policies = new Map([["s", new UpstreamPolicies(config.servers[0]!.upstream)]]);
const invoker = new Invoker(
  catalog,
  new ResultCache(createMemoryStore({ maxEntries: 10, maxBytes: 1e6 })),
  policies,
  log,
);
const auth = new ApiKeyAuth([]);
const BODY_LIMIT = 64 * 1024;
const admin = buildAdminApp({
  invoker,
  catalog,
  episodes: new Episodes([], [], catalog),
  upstreams: [upstream],
  policies,
  metrics: new Registry(),
  auth,
  log,
  bodyLimitBytes: BODY_LIMIT,
});
let grpc: GrpcServerHandle;
let client: GatewayClient;

beforeAll(async () => {
  grpc = await startGrpcServer(
    { invoker, catalog, episodes: new Episodes([], [], catalog), auth, maxBatchSize: 16, log },
    { host: "127.0.0.1", port: 0, maxMessageBytes: 4 * 1024 * 1024 },
  );
  client = new GatewayClient(`127.0.0.1:${grpc.port}`);
});
afterAll(async () => {
  client.close();
  await grpc.close(0);
  await admin.close();
});

const call = (name: string, argumentsJson: string) => ({
  name,
  arguments_json: argumentsJson,
  deadline_ms: 0,
  trajectory_id: "",
  call_id: "",
  cache: "CACHE_DEFAULT" as const,
});

describe("exceedsDepth", () => {
  it("counts the arguments object as level 1, through arrays and objects, without recursing", () => {
    expect(exceedsDepth({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(exceedsDepth({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(exceedsDepth({ a: 1, b: "x", c: null }, 1)).toBe(false);
    expect(exceedsDepth(JSON.parse(nestedJson(100_000)), LIMIT)).toBe(true);
  });
});

describe("deeply nested arguments", () => {
  it(`gRPC CallTool and CallTools: 5,000 levels → INVALID_ARGUMENTS naming the limit (${LIMIT}); the next call is served`, async () => {
    const before = upstream.calls;
    const one = await client.callTool(call("s__echo", nestedJson(5_000)));
    expect([one.error_code, one.error_message]).toEqual([
      "INVALID_ARGUMENTS",
      `s__echo: arguments nest deeper than ${LIMIT} levels (max_argument_depth is ${LIMIT})`,
    ]);
    const batch = await client.callTools({
      calls: [call("s__echo", nestedJson(5_000)), call("s__echo", nestedJson(LIMIT))],
    });
    expect(batch.map((r) => r.error_code)).toEqual(["INVALID_ARGUMENTS", "OK"]);
    const next = await client.callTool(call("s__echo", '{"q":"still here"}'));
    expect([next.error_code, next.content[0]?.text?.text]).toEqual(["OK", '{"q":"still here"}']);
    // Only the two calls within the limit reached the upstream.
    expect(upstream.calls - before).toBe(2);
  });

  it("HTTP POST /v1/tools/{name}:call: 5,000 levels → 400 INVALID_ARGUMENTS naming the limit; the next call is served", async () => {
    const deep = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      headers: { "content-type": "application/json" },
      payload: `{"arguments":${nestedJson(5_000)}}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
      error_message: `s__echo: arguments nest deeper than ${LIMIT} levels (max_argument_depth is ${LIMIT})`,
    });
    const next = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      payload: { arguments: { q: "next" } },
    });
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({
      error_code: "OK",
      content: [{ type: "text", text: '{"q":"next"}' }],
    });
  });
});

describe("INTERNAL", () => {
  it("reaches the caller as 'internal gateway error' and the log with its cause (error and stack)", async () => {
    logged.length = 0;
    const r = await client.callTool(call("s__broken", "{}"));
    expect([r.error_code, r.error_message]).toEqual(["INTERNAL", "s__broken: internal gateway error"]);
    expect(r.error_message).not.toContain("undefined is not a function");
    expect(logged).toHaveLength(1);
    const line = logged[0] as { msg: string; tool: string; err: { message: string; stack: string } };
    expect(line.msg).toBe("internal gateway error");
    expect(line.tool).toBe("s__broken");
    expect(line.err.message).toBe("fake upstream bug: undefined is not a function");
    expect(line.err.stack).toContain("error-surfaces.test.ts");
  });
});

describe("admin errors use the documented {error: {code, message}} body", () => {
  const shape = (code: string) => ({ error: { code, message: expect.any(String) } });

  it("404 for an unknown route", async () => {
    const r = await admin.inject({ method: "GET", url: "/v1/nope" });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual(shape("NOT_FOUND"));
    expect(r.json().error.message).toBe("no route GET /v1/nope");
  });
  it("400 for a body that is not valid JSON", async () => {
    const r = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      headers: { "content-type": "application/json" },
      payload: '{"arguments": {',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual(shape("INVALID_REQUEST"));
  });
  it("415 for a body that is not JSON by content type", async () => {
    const r = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      headers: { "content-type": "application/xml" },
      payload: "<arguments/>",
    });
    expect(r.statusCode).toBe(415);
    expect(r.json()).toEqual(shape("UNSUPPORTED_MEDIA_TYPE"));
  });
  it("415 for a text/plain body too", async () => {
    const r = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      headers: { "content-type": "text/plain" },
      payload: "arguments=1",
    });
    expect(r.statusCode).toBe(415);
    expect(r.json()).toEqual(shape("UNSUPPORTED_MEDIA_TYPE"));
  });
  it("413 for a body over the limit", async () => {
    const r = await admin.inject({
      method: "POST",
      url: "/v1/tools/s__echo:call",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ arguments: { q: "x".repeat(BODY_LIMIT) } }),
    });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toEqual(shape("BODY_TOO_LARGE"));
  });
  it("413 over a real connection: the body is read first, the answer arrives, the connection serves on", async () => {
    const url = await admin.listen({ host: "127.0.0.1", port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ arguments: { q: "x".repeat(BODY_LIMIT * 2) } });
      const big = await httpRequest(`${url}/v1/tools/s__echo:call`, agent, "POST", body);
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toEqual(shape("BODY_TOO_LARGE"));
      expect(JSON.parse(big.body).error.message).toContain(
        `more than grpc.max_message_bytes (${BODY_LIMIT})`,
      );
      const next = await httpRequest(`${url}/v1/tools`, agent, "GET");
      expect([next.status, next.reusedSocket]).toEqual([200, true]);
    } finally {
      agent.destroy();
    }
  });
});

/** One request on `agent`, its whole answer, and whether it went on a kept-alive connection. */
function httpRequest(
  url: string,
  agent: Agent,
  method: string,
  body?: string,
): Promise<{ status: number; body: string; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { "content-type": "application/json" };
    const req = request(url, { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: text, reusedSocket: req.reusedSocket }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}
