// One trace across four processes: caller → gateway (server span) → upstream MCP client span →
// tool server span, asserted from the spans a real OTLP/HTTP receiver got.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type ChildGateway, ROOT, spawnGateway, testbedStdio } from "@rlfactory/test-support/gateway-harness";
import { newClient } from "@rlfactory/test-support/mcp-client";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("tracing across caller, gateway and tool server", () => {
  let receiver: OtlpReceiver;
  let gw: ChildGateway;
  let otelEnv: Record<string, string>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    otelEnv = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    };
    gw = await spawnGateway(
      { servers: { testbed: testbedStdio(undefined, { tools: { echo: { cache: true } } }) } },
      otelEnv,
    );
  });
  afterAll(async () => {
    await gw?.stop();
    await receiver?.close();
  });

  async function callFromTracedCaller(tool: string, args: unknown, mode: "batch" | "one" = "one") {
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, "test/support/src/traced-caller.ts"), gw.grpcAddress, tool, JSON.stringify(args), mode],
      {
        cwd: ROOT,
        env: { ...process.env, ...otelEnv },
      },
    );
    return JSON.parse(stdout.trim()) as {
      traceId: string;
      spanId: string;
      error_code: string;
      is_error: boolean;
    };
  }

  it("links caller span → gateway server span → MCP client span → tool server span in one trace", async () => {
    const caller = await callFromTracedCaller("testbed__sleep", { ms: 5 });
    expect(caller.error_code).toBe("OK");
    const spans = await receiver.waitFor((s) => s.traceId === caller.traceId, 10_000, 4);

    const callerSpan = spans.find((s) => s.spanId === caller.spanId);
    expect(callerSpan?.serviceName).toBe("rlf-test-caller");

    const server = spans.find((s) => s.parentSpanId === caller.spanId);
    expect(server).toMatchObject({
      name: "rlfactory.v1.ToolGateway/CallTool",
      kind: "SERVER",
      serviceName: "rlf-gateway",
    });
    expect(server?.attributes).toMatchObject({
      "rlf.cache_hit": false,
      "rlf.attempts": 1,
      "rlf.trajectory_id": "traj-1",
    });

    const client = spans.find((s) => s.parentSpanId === server?.spanId);
    expect(client).toMatchObject({ name: "tools/call sleep", kind: "CLIENT", serviceName: "rlf-gateway" });
    expect(client?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "sleep",
      "gen_ai.operation.name": "execute_tool",
      "rlf.attempt": 1,
    });

    const tool = spans.find((s) => s.parentSpanId === client?.spanId);
    expect(tool).toMatchObject({ name: "tools/call sleep", kind: "SERVER" });
    expect(tool?.serviceName).toMatch(/testbed/);
  });

  it("a batch on the CallToolsStream: its gateway span is a child of the caller's span, its call span a child of that", async () => {
    const caller = await callFromTracedCaller("testbed__sleep", { ms: 5 }, "batch");
    expect(caller.error_code).toBe("OK");
    const spans = await receiver.waitFor((s) => s.traceId === caller.traceId, 10_000, 5);
    const server = spans.find((s) => s.parentSpanId === caller.spanId);
    expect(server).toMatchObject({
      name: "rlfactory.v1.ToolGateway/CallTools",
      kind: "SERVER",
      serviceName: "rlf-gateway",
    });
    expect(server?.attributes["rpc.method"]).toBe("CallToolsStream");
    const call = spans.find((s) => s.parentSpanId === server?.spanId);
    expect(call?.name).toBe("call testbed__sleep");
    const upstream = spans.find((s) => s.parentSpanId === call?.spanId);
    expect(upstream).toMatchObject({ name: "tools/call sleep", kind: "CLIENT" });
  });

  it("marks a tool's own error with error.type=tool_error on the client span", async () => {
    const failed = await callFromTracedCaller("testbed__fail", { message: "nope" });
    expect(failed.is_error).toBe(true);
    const spans = await receiver.waitFor(
      (s) => s.traceId === failed.traceId && s.kind === "CLIENT" && s.serviceName === "rlf-gateway",
      10_000,
    );
    expect(spans[0]?.attributes["error.type"]).toBe("tool_error");
  });

  it("an MCP client's tools/call through /mcp continues the trace named by _meta.traceparent", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpanId = "00f067aa0ba902b7";
    const client = newClient("2026-07-28");
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.adminUrl}/mcp`)));
    try {
      const r = await client.callTool({
        name: "testbed__sleep",
        arguments: { ms: 5 },
        _meta: { traceparent: `00-${traceId}-${callerSpanId}-01` },
      });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const spans = await receiver.waitFor((s) => s.traceId === traceId, 10_000, 3);
    const server = spans.find((s) => s.parentSpanId === callerSpanId);
    expect(server).toMatchObject({
      name: "tools/call testbed__sleep",
      kind: "SERVER",
      serviceName: "rlf-gateway",
    });
    // the upstream MCP call is the gateway span's child: the same path as a gRPC CallTool
    const upstream = spans.find((s) => s.parentSpanId === server?.spanId);
    expect(upstream).toMatchObject({ name: "tools/call sleep", kind: "CLIENT" });
  });

  // Last: it stops the gateway.
  it("marks a cache hit on the server span, and a hit's trace has no client span once the gateway has flushed", async () => {
    const miss = await callFromTracedCaller("testbed__echo", { value: "traced" });
    const hit = await callFromTracedCaller("testbed__echo", { value: "traced" });
    const [server] = await receiver.waitFor(
      (s) => s.traceId === hit.traceId && s.kind === "SERVER" && s.serviceName === "rlf-gateway",
      10_000,
    );
    expect(server?.attributes["rlf.cache_hit"]).toBe(true);
    // SIGTERM shuts the gateway's tracer down, which exports every span it still holds before the
    // process exits 0: after that, a span the receiver lacks was never made.
    await gw.stop();
    expect(gw.process.exitCode).toBe(0);
    const clientSpans = (traceId: string) =>
      receiver.spans().filter((s) => s.traceId === traceId && s.kind === "CLIENT");
    expect(clientSpans(miss.traceId)).toHaveLength(1); // the miss went upstream
    expect(clientSpans(hit.traceId)).toHaveLength(0); // the hit did not
  });
});
