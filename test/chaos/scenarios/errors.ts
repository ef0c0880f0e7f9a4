// Findings: deeply nested JSON arguments could reach recursive code; error answers were not typed
// alike across surfaces; the admin API's framework errors had their own body shape. A real
// `rlf gateway` process over a real stdio testbed server gets deep, malformed and oversized requests
// over gRPC and the admin HTTP API: each must answer a typed error (INVALID_ARGUMENTS naming the
// depth limit; 400/404/413/415 with {error:{code,message}}), the process must not crash, and no
// answer may carry a stack trace.
import { GatewayClient } from "@rlfactory/clients";
import { TESTBED } from "@rlfactory/test-support/gateway-harness";
import { type GatewayProcess, startGatewayProcess } from "../gateway-process.ts";
import { type ChaosCheck, type ChaosScenario, check, emptyTallies } from "../scenario.ts";

const MAX_DEPTH = 64;
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
/** A V8 stack frame ("    at fn (file.ts:12:5)") or a file:line:column reference. */
const STACK_TRACE = /\n\s+at \S|\bat .*\.[cm]?[jt]s:\d+(:\d+)?|node:internal/;

const nested = (depth: number, leaf = "1") => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;
const deepArgs = (depth: number) => `{"value":${nested(depth)}}`;

interface Case {
  name: string;
  run(gw: GatewayProcess, grpc: GatewayClient): Promise<{ passed: boolean; detail: string; text: string }>;
}

/** A gRPC CallTool expected to answer error_code `code` (and, when given, a message matching `message`). */
function grpcCase(
  name: string,
  call: { name: string; arguments_json: string },
  code: string,
  message?: RegExp,
): Case {
  return {
    name: `gRPC: ${name} → ${code}`,
    async run(_gw, grpc) {
      const r = await grpc.callTool(call).catch((err: Error) => err);
      if (r instanceof Error) return { passed: false, detail: `RPC failed: ${r.message}`, text: r.message };
      const passed = r.error_code === code && (message === undefined || message.test(r.error_message));
      return { passed, detail: `${r.error_code}: ${r.error_message.slice(0, 200)}`, text: r.error_message };
    },
  };
}

/** An admin HTTP request expected to answer `status` with body {error:{code,message}} (or a result's error_code). */
function httpCase(
  name: string,
  request: { method?: string; path: string; body?: string; contentType?: string },
  status: number,
  code: string,
  message?: RegExp,
): Case {
  return {
    name: `HTTP: ${name} → ${status} ${code}`,
    async run(gw) {
      const res = await fetch(`${gw.adminUrl}${request.path}`, {
        method: request.method ?? "POST",
        headers: request.contentType ? { "content-type": request.contentType } : {},
        body: request.body,
      }).catch((err: Error) => err);
      if (res instanceof Error) {
        const cause = res.cause instanceof Error ? ` (${res.cause.message})` : "";
        return { passed: false, detail: `request failed: ${res.message}${cause}`, text: "" };
      }
      const text = await res.text();
      let body: {
        error?: { code?: unknown; message?: unknown };
        error_code?: unknown;
        error_message?: unknown;
      } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return { passed: false, detail: `${res.status}, not JSON: ${text.slice(0, 200)}`, text };
      }
      const shaped =
        body.error !== undefined
          ? Object.keys(body).length === 1 &&
            Object.keys(body.error).sort().join(",") === "code,message" &&
            body.error.code === code &&
            typeof body.error.message === "string" &&
            (message === undefined || message.test(body.error.message))
          : body.error_code === code &&
            typeof body.error_message === "string" &&
            (message === undefined || message.test(body.error_message));
      return { passed: res.status === status && shaped, detail: `${res.status} ${text.slice(0, 200)}`, text };
    },
  };
}

const CASES: Case[] = [
  grpcCase(
    `arguments nested ${MAX_DEPTH + 1} deep`,
    { name: "testbed__echo", arguments_json: deepArgs(MAX_DEPTH) },
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  grpcCase(
    "arguments nested 10,000 deep",
    { name: "testbed__echo", arguments_json: deepArgs(10_000) },
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  grpcCase(
    "arguments nested 200,000 deep",
    { name: "testbed__echo", arguments_json: deepArgs(200_000) },
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  grpcCase(
    "objects nested 10,000 deep",
    { name: "testbed__echo", arguments_json: `{"value":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}` },
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  grpcCase(
    "arguments nested exactly at the limit",
    { name: "testbed__echo", arguments_json: deepArgs(MAX_DEPTH - 1) },
    "OK",
  ),
  grpcCase(
    "truncated JSON",
    { name: "testbed__echo", arguments_json: '{"value": [1, 2' },
    "INVALID_ARGUMENTS",
  ),
  grpcCase(
    "arguments that are an array",
    { name: "testbed__echo", arguments_json: "[1]" },
    "INVALID_ARGUMENTS",
  ),
  grpcCase(
    "arguments that are a string",
    { name: "testbed__echo", arguments_json: '"x"' },
    "INVALID_ARGUMENTS",
  ),
  grpcCase(
    "invalid UTF-16 escapes",
    { name: "testbed__echo", arguments_json: '{"value":"\\ud800\\u"}' },
    "INVALID_ARGUMENTS",
  ),
  grpcCase("an empty tool name", { name: "", arguments_json: "{}" }, "UNKNOWN_TOOL"),
  grpcCase("an unknown tool", { name: "testbed__nope", arguments_json: "{}" }, "UNKNOWN_TOOL"),
  grpcCase(
    "a schema-invalid argument",
    { name: "testbed__sleep", arguments_json: '{"ms":"soon"}' },
    "INVALID_ARGUMENTS",
  ),
  grpcCase(
    "2 MB of arguments",
    { name: "testbed__echo", arguments_json: JSON.stringify({ value: "x".repeat(1_100_000) }) },
    "ARGUMENTS_TOO_LARGE",
  ),
  httpCase(
    `arguments nested ${MAX_DEPTH + 1} deep`,
    {
      path: "/v1/tools/testbed__echo:call",
      body: `{"arguments":${deepArgs(MAX_DEPTH)}}`,
      contentType: "application/json",
    },
    400,
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  httpCase(
    "a body nested 200,000 deep",
    {
      path: "/v1/tools/testbed__echo:call",
      body: `{"arguments":${deepArgs(200_000)}}`,
      contentType: "application/json",
    },
    400,
    "INVALID_ARGUMENTS",
    new RegExp(`\\b${MAX_DEPTH}\\b`),
  ),
  httpCase(
    "a body that is not JSON",
    { path: "/v1/tools/testbed__echo:call", body: '{"arguments": {', contentType: "application/json" },
    400,
    "INVALID_REQUEST",
  ),
  httpCase(
    "body fields of the wrong type",
    {
      path: "/v1/tools/testbed__echo:call",
      body: '{"arguments": 5, "deadline_ms": "soon"}',
      contentType: "application/json",
    },
    400,
    "INVALID_ARGUMENTS",
  ),
  httpCase(
    "a text/plain body",
    { path: "/v1/tools/testbed__echo:call", body: "value=1", contentType: "text/plain" },
    415,
    "UNSUPPORTED_MEDIA_TYPE",
  ),
  httpCase(
    `a body over ${MAX_MESSAGE_BYTES} bytes`,
    {
      path: "/v1/tools/testbed__echo:call",
      body: JSON.stringify({ arguments: { value: "x".repeat(MAX_MESSAGE_BYTES + 1024) } }),
      contentType: "application/json",
    },
    413,
    "BODY_TOO_LARGE",
  ),
  httpCase("no such route", { method: "GET", path: "/v1/nothing/here" }, 404, "NOT_FOUND"),
  httpCase(
    "a tool path without :call",
    { path: "/v1/tools/testbed__echo:run", body: "{}", contentType: "application/json" },
    404,
    "NOT_FOUND",
  ),
  httpCase(
    "an unknown tool",
    { path: "/v1/tools/testbed__nope:call", body: "{}", contentType: "application/json" },
    404,
    "UNKNOWN_TOOL",
  ),
];

const scenario: ChaosScenario = {
  name: "errors",
  description:
    "Deep, malformed and oversized requests over gRPC and the admin HTTP API answer typed errors (INVALID_ARGUMENTS with the depth limit; {error:{code,message}} bodies for 400/404/413/415): no crash, no stack trace.",
  async run({ bounded, workDir, log }) {
    const tallies = emptyTallies();
    const checks: ChaosCheck[] = [];
    let stackTraces = 0;
    const gw = await startGatewayProcess(workDir, {
      grpc: { port: 0, max_message_bytes: MAX_MESSAGE_BYTES },
      defaults: { max_argument_depth: MAX_DEPTH },
      servers: { testbed: { command: process.execPath, args: [TESTBED, "--stdio"] } },
    });
    const grpc = new GatewayClient(gw.grpcAddress);
    const repeats = bounded ? 1 : 5;
    try {
      for (let round = 0; round < repeats; round++) {
        for (const c of CASES) {
          const r = await c.run(gw, grpc);
          tallies.cases_tried++;
          const leaked = STACK_TRACE.test(r.text);
          if (leaked) stackTraces++;
          if (round === 0) {
            checks.push(check(c.name, r.passed, r.detail));
            log(`${r.passed ? "ok  " : "FAIL"} ${c.name}: ${r.detail.slice(0, 120)}`);
          } else if (!r.passed) checks.push(check(`${c.name} (round ${round + 1})`, false, r.detail));
        }
      }
      // Over gRPC, a message over the server's limit is refused by the transport with a status.
      const big = await grpc
        .callTool({
          name: "testbed__echo",
          arguments_json: JSON.stringify({ value: "x".repeat(MAX_MESSAGE_BYTES) }),
        })
        .then(
          (r) => `answered ${r.error_code}`,
          (err: { code?: number }) => `status ${err.code}`,
        );
      tallies.cases_tried++;
      checks.push(
        check(
          `gRPC: a message over ${MAX_MESSAGE_BYTES} bytes → RESOURCE_EXHAUSTED (8)`,
          big === "status 8",
          big,
        ),
      );
      const after = await grpc.callTool({ name: "testbed__echo", arguments_json: '{"value":1}' });
      checks.push(
        check("afterwards an ordinary call succeeds", after.error_code === "OK", String(after.error_code)),
      );
    } finally {
      grpc.close();
      if (gw.exited()) tallies.crashes++;
      const logs = gw.output();
      await gw.stop();
      checks.push(
        check(
          "the gateway process did not crash",
          tallies.crashes === 0,
          tallies.crashes ? logs.slice(-800) : "running",
        ),
      );
    }
    checks.push(
      check(
        "no answer carries a stack trace",
        stackTraces === 0,
        `${stackTraces} answers with a stack trace`,
      ),
    );
    return {
      tallies,
      checks,
      figures: { error_cases: CASES.length + 1, rounds: repeats, stack_trace_leaks: stackTraces },
    };
  },
};

export default scenario;
