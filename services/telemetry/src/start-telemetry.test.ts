import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type OtlpReceiver, startOtlpReceiver } from "@rlfactory/test-support/otlp-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const emitter = fileURLToPath(
  new URL("../../../test/support/src/telemetry-span-emitter.ts", import.meta.url),
);
const PARENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN = "b7ad6b7169203331";

/** The environment of the child, without any OTEL_* variable inherited from the test runner. */
function childEnv(otel: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  return { ...env, ...otel, TRACEPARENT: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` };
}

async function emitSpan(
  otel: Record<string, string>,
): Promise<{ traceId: string; spanId: string; recording: boolean }> {
  const { stdout } = await run(process.execPath, [emitter], { env: childEnv(otel) });
  return JSON.parse(stdout.trim());
}

describe("startTelemetry", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  for (const protocol of ["http/json", "http/protobuf"]) {
    it(`exports spans over OTLP ${protocol} by the time shutdown resolves`, async () => {
      const emitted = await emitSpan({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      });
      expect(emitted.recording).toBe(true);
      const [span] = await receiver.waitFor((s) => s.spanId === emitted.spanId, 1_000);
      expect(span).toMatchObject({
        traceId: PARENT_TRACE,
        parentSpanId: PARENT_SPAN,
        name: "fixture-span",
        kind: "CLIENT",
        serviceName: "rlf-telemetry-fixture",
        attributes: { "fixture.n": 7 },
      });
    });
  }

  it("lets OTEL_SERVICE_NAME override the service name", async () => {
    const emitted = await emitSpan({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "renamed",
    });
    const [span] = await receiver.waitFor((s) => s.spanId === emitted.spanId, 1_000);
    expect(span?.serviceName).toBe("renamed");
  });

  it("installs nothing when no exporter is configured, or when the SDK is disabled", async () => {
    expect((await emitSpan({})).recording).toBe(false);
    const disabled = await emitSpan({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "true" });
    expect(disabled.recording).toBe(false);
    // The unrecorded span still continues the caller's trace.
    expect(disabled.traceId).toBe(PARENT_TRACE);
  });
});
