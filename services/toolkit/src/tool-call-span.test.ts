// A tool server started like production (`serveFromArgs`, telemetry from OTEL_* env) exports one
// SERVER span per tools/call, continuing the caller's trace from params._meta.traceparent.

import { connectStdio, ERAS } from "@rlfactory/test-support/mcp-client";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { TESTBED_SERVER_PATH } from "@rlfactory/test-support/testbed-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID = "00f067aa0ba902b7";

describe("tools/call spans", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  for (const era of ERAS) {
    it(`are exported with the caller as parent (${era})`, async () => {
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
      const client = await connectStdio(
        {
          command: process.execPath,
          args: [TESTBED_SERVER_PATH, "--stdio"],
          env: {
            ...env,
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          } as Record<string, string>,
          stderr: "ignore",
        },
        era,
      );
      const tag = `trace-${era}`;
      try {
        const traceparent = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;
        await client.callTool({ name: "echo", arguments: { value: tag }, _meta: { traceparent } });
        await client.callTool({ name: "fail", arguments: { message: tag }, _meta: { traceparent } });
      } finally {
        await client.close();
      }

      const [echo] = await receiver.waitFor(
        (s) =>
          s.name === "tools/call echo" &&
          s.attributes["jsonrpc.request.id"] !== undefined &&
          s.serviceName === "rlf-tool-testbed" &&
          s.traceId === TRACE_ID,
        5_000,
      );
      expect(echo).toMatchObject({
        traceId: TRACE_ID,
        parentSpanId: PARENT_SPAN_ID,
        kind: "SERVER",
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "echo",
          "gen_ai.operation.name": "execute_tool",
        },
      });
      expect(echo?.attributes["error.type"]).toBeUndefined();

      const fails = await receiver.waitFor(
        (s) => s.name === "tools/call fail" && s.traceId === TRACE_ID,
        5_000,
      );
      expect(
        fails.some((s) => s.parentSpanId === PARENT_SPAN_ID && s.attributes["error.type"] === "tool_error"),
      ).toBe(true);
    });
  }
});
