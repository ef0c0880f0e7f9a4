// A caller in its own process, for the tracing test: starts OpenTelemetry from OTEL_* env, opens a
// "rollout step" span, calls the gateway inside it (trace context travels in gRPC metadata), then
// prints {traceId, spanId, result} as one JSON line.
//
//   node test/support/src/traced-caller.ts HOST:PORT TOOL ARGS_JSON [batch]
//
// With `batch`, the call goes as a one-call batch (callTools: the CallToolsStream) instead of CallTool.

import { context, SpanKind, trace } from "@opentelemetry/api";
import { GatewayClient } from "@rlfactory/clients";
import { startTelemetry } from "@rlfactory/telemetry";

const [address, name, args, mode] = process.argv.slice(2);
if (!address || !name) throw new Error("usage: traced-caller.ts HOST:PORT TOOL [ARGS_JSON]");
const telemetry = await startTelemetry({ serviceName: "rlf-test-caller" });
const client = new GatewayClient(address);
const span = trace.getTracer("test-caller").startSpan("rollout step", { kind: SpanKind.INTERNAL });
const one = { name, arguments_json: args ?? "{}", trajectory_id: "traj-1" };
const result = await context.with(trace.setSpan(context.active(), span), async () =>
  mode === "batch" ? (await client.callTools({ calls: [one] }))[0]! : client.callTool(one),
);
span.end();
client.close();
await telemetry.shutdown();
const { traceId, spanId } = span.spanContext();
process.stdout.write(
  `${JSON.stringify({ traceId, spanId, error_code: result.error_code, is_error: result.is_error })}\n`,
);
