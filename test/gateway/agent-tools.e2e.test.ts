// Gateway agent servers (`kind: agent`) against a scripted OpenAI-compatible endpoint on loopback, with
// the testbed MCP server (a child process) as the sub-agents' tool: the run's limits (max_steps,
// token_budget, the call's deadline) as typed errors, a call of a tool it was not offered answered to the
// sub-agent as an error it can read, and agents that may call each other never recursing into a run
// already in progress.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type InProcessGateway,
  startTestGateway,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

interface Body {
  model: string;
  messages: { role: string; content: string; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}
/** What the endpoint answers to a request (undefined: never answers). */
type Script = (body: Body, n: number) => object | undefined;

let endpoint: Server;
let url: string;
let script: Script;
let bodies: Body[] = [];
let gateway: InProcessGateway;

const completion = (message: object, tokens = 10) => ({
  model: "scripted",
  choices: [{ message, finish_reason: "stop" }],
  usage: { prompt_tokens: tokens, completion_tokens: 1 },
});
const callTool = (name: string, args: object, id = "c1") =>
  completion({
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
const say = (text: string) => completion({ content: text });

beforeAll(async () => {
  endpoint = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      const body = JSON.parse(text) as Body;
      bodies.push(body);
      const answer = script(body, bodies.length);
      if (answer) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
  const tool = (extra: Record<string, unknown>) => ({
    input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    messages: [{ role: "user", content: "{{q}}" }],
    ...extra,
  });
  gateway = await startTestGateway({
    servers: {
      testbed: testbedStdio(),
      solo: {
        kind: "agent",
        endpoint: { base_url: url, model: "solo" },
        agent_tools: {
          steps: tool({ tools: ["testbed__echo"], max_steps: 3 }),
          tokens: tool({ tools: ["testbed__echo"], token_budget: 25 }),
        },
      },
      a: {
        kind: "agent",
        endpoint: { base_url: url, model: "a" },
        agent_tools: { ask: tool({ tools: ["b__ask"], allow_agent_tools: true }) },
      },
      b: {
        kind: "agent",
        endpoint: { base_url: url, model: "b" },
        agent_tools: { ask: tool({ tools: ["a__ask", "testbed__echo"], allow_agent_tools: true }) },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  endpoint?.closeAllConnections();
  await new Promise((r) => endpoint?.close(r));
});

beforeEach(() => {
  bodies = [];
});

const call = (name: string, extra: Record<string, unknown> = {}) =>
  gateway.client.callTool({ name, arguments_json: JSON.stringify({ q: "go" }), ...extra });

describe("an agent server's tool in the gateway", () => {
  it("is listed neither cached nor retried (a run spends tokens and calls tools)", async () => {
    const tools = await gateway.client.listTools("solo");
    expect(tools.map((t) => [t.name, t.idempotent, t.annotations?.read_only_hint])).toEqual([
      ["solo__steps", false, false],
      ["solo__tokens", false, false],
    ]);
  });

  it("ends a run that has not answered after max_steps model calls with BUDGET_EXCEEDED", async () => {
    script = (_b, n) => callTool("testbed__echo", { value: n });
    const r = await call("solo__steps");
    expect(r.error_code).toBe("BUDGET_EXCEEDED");
    expect(r.error_message).toMatch(/made 3 model calls \(max_steps\)/);
    expect(bodies).toHaveLength(3);
    // each step's tool call ran through the gateway; the next request carried its result
    expect(bodies[2]?.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      '{"value":1}',
      '{"value":2}',
    ]);
  });

  it("ends a run past its token_budget with BUDGET_EXCEEDED, before another model call", async () => {
    script = (_b, n) => callTool("testbed__echo", { value: n }); // 11 tokens a call
    const r = await call("solo__tokens");
    expect(r.error_code).toBe("BUDGET_EXCEEDED");
    expect(r.error_message).toMatch(/used 33 of its 25 tokens \(token_budget\)/);
    expect(bodies).toHaveLength(3);
  });

  it("answers a call of a tool it was not offered to the sub-agent, which can then answer", async () => {
    script = (_b, n) => (n === 1 ? callTool("testbed__fail", { message: "x" }) : say("gave up"));
    const r = await call("solo__steps");
    expect([r.error_code, r.content[0]?.text?.text]).toEqual(["OK", "gave up"]);
    expect(bodies[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "c1",
      content: "error: testbed__fail is not one of your tools (testbed__echo)",
    });
    expect(r.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 2, model: "scripted" });
  });

  it("never recurses: an agent called by another agent is not offered the caller's tools", async () => {
    script = (body) => {
      if (body.model === "a")
        return body.messages.some((m) => m.role === "tool")
          ? say("a done")
          : callTool("b__ask", { q: "inner" });
      return say(`b offered ${body.tools?.map((t) => t.function.name).join(",")}`);
    };
    const r = await call("a__ask");
    expect(r.content[0]?.text?.text).toBe("a done");
    expect(bodies.map((b) => [b.model, b.tools?.map((t) => t.function.name)])).toEqual([
      ["a", ["b__ask"]],
      ["b", ["testbed__echo"]], // a__ask left out: a is running
      ["a", ["b__ask"]],
    ]);
    expect(bodies[2]?.messages.at(-1)?.content).toBe("b offered testbed__echo");
    // called on its own, b is offered both
    bodies = [];
    await call("b__ask");
    expect(bodies[0]?.tools?.map((t) => t.function.name)).toEqual(["a__ask", "testbed__echo"]);
  });

  it("is cut off at the call's deadline (TIMEOUT), whichever step it is in", async () => {
    script = (_b, n) => (n === 1 ? callTool("testbed__echo", { value: 1 }) : undefined);
    const r = await call("solo__steps", { deadline_ms: 500 });
    expect(r.error_code).toBe("TIMEOUT");
    expect(bodies).toHaveLength(2);
  });
});
