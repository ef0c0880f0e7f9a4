// A gateway model server (`kind: model`) against a scripted OpenAI-compatible endpoint on loopback:
// its calls take the gateway's request path, so the policies apply to them as to an MCP server's —
// retries after 503s, the deadline aborting a slow completion, the circuit breaker opening, a refused
// input as the tool's own error — and each answered call returns its usage.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

type Step = (res: ServerResponse, body: { messages: { role: string; content: string }[] }) => void;

let endpoint: Server;
let url: string;
/** What the endpoint does with each request, in order; the last step repeats. */
let script: Step[] = [];
let requests = 0;
let gateway: InProcessGateway;

const answer: Step = (res, body) =>
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      model: "scripted",
      choices: [{ message: { content: `echo: ${body.messages.at(-1)?.content}` }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 4 },
    }),
  );
const status =
  (code: number): Step =>
  (res) =>
    res
      .writeHead(code, { "content-type": "application/json" })
      .end(JSON.stringify({ error: { message: `status ${code}` } }));
const never: Step = () => {};

beforeAll(async () => {
  endpoint = createServer((req: IncomingMessage, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      const step = script[Math.min(requests, script.length - 1)]!;
      requests++;
      step(res, JSON.parse(text));
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
  const tool = {
    input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    messages: [{ role: "user", content: "Shorten: {{text}}" }],
  };
  gateway = await startTestGateway({
    servers: {
      writer: {
        kind: "model",
        endpoint: { base_url: url, model: "m", price_per_million_tokens: { prompt: 1, completion: 1 } },
        policy: {
          retry: { max_attempts: 3, initial_delay_ms: 1, max_delay_ms: 5 },
          breaker: { consecutive_failures: 5, half_open_after_ms: 600_000 },
          deadline_ms: 2_000,
        },
        model_tools: { shorten: tool },
      },
    },
  });
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  endpoint?.closeAllConnections();
  await new Promise((r) => endpoint?.close(r));
});

beforeEach(() => {
  requests = 0;
});

const call = (text: string, extra: Record<string, unknown> = {}) =>
  gateway.client.callTool({ name: "writer__shorten", arguments_json: JSON.stringify({ text }), ...extra });

describe("a model server's tool in the gateway", () => {
  it("is listed with its input schema, annotated read-only and idempotent", async () => {
    const [tool] = await gateway.client.listTools();
    expect(tool).toMatchObject({
      name: "writer__shorten",
      idempotent: true,
      annotations: { read_only_hint: true, idempotent_hint: true },
    });
    expect(JSON.parse(tool!.input_schema_json).required).toEqual(["text"]);
  });

  it("validates the arguments against the schema before any request", async () => {
    script = [answer];
    const r = await gateway.client.callTool({ name: "writer__shorten", arguments_json: '{"txt": 1}' });
    expect(r.error_code).toBe("INVALID_ARGUMENTS");
    expect(requests).toBe(0);
  });

  it("is retried after 503s and answers with its usage and cost", async () => {
    script = [status(503), status(503), answer];
    const r = await call("a long text");
    expect([r.error_code, r.attempts, requests]).toEqual(["OK", 3, 3]);
    expect(r.content[0]?.text?.text).toBe("echo: Shorten: a long text");
    expect(r.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4, model: "scripted" });
    expect(r.usage?.cost_usd).toBeCloseTo(14 / 1_000_000, 12);
  });

  it("shows an input the endpoint refused (400) to the model as the tool's own error", async () => {
    script = [status(400)];
    const r = await call("far too long");
    expect([r.error_code, r.is_error, r.attempts, requests]).toEqual(["OK", true, 1, 1]);
    expect(r.content[0]?.text?.text).toMatch(/^the model refused the input: .*status 400/);
  });

  it("is cut off at the call's deadline", async () => {
    script = [never];
    const r = await call("slow", { deadline_ms: 300 });
    expect(r.error_code).toBe("TIMEOUT");
    expect(requests).toBe(1);
  });

  it("opens the server's breaker after consecutive failures: the next call sends nothing", async () => {
    script = [status(500)];
    const failed = await call("x");
    expect([failed.error_code, requests]).toEqual(["UPSTREAM_ERROR", 3]);
    // every attempt counts: the second call's second attempt is the fifth failure in a row
    const again = await call("y");
    expect([again.error_code, requests]).toEqual(["UPSTREAM_ERROR", 5]);
    const refused = await call("z");
    expect([refused.error_code, requests]).toEqual(["CIRCUIT_OPEN", 5]);
  });
});
