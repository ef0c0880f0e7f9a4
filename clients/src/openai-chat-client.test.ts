// The one OpenAI chat client against a real HTTP server on loopback: what it sends, what it reads
// (text, finish reason, model, usage), and how each failure of an attempt is typed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chatCompletionsUrl,
  isOpenAiChatError,
  OpenAiChatClient,
  type OpenAiChatError,
} from "./openai-chat-client.ts";

type Reply = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let server: Server;
let base: string;
let reply: Reply;
const seen: { url: string; headers: IncomingMessage["headers"]; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body: JSON.parse(body || "null") });
      reply(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const json =
  (status: number, value: unknown): Reply =>
  (_req, _body, res) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  };

async function failure(client: OpenAiChatClient, signal?: AbortSignal): Promise<OpenAiChatError> {
  try {
    await client.complete(
      { model: "m", messages: [{ role: "user", content: "hi" }] },
      signal ? { signal } : {},
    );
  } catch (err) {
    if (isOpenAiChatError(err)) return err;
    throw err;
  }
  throw new Error("the request did not fail");
}

describe("OpenAiChatClient", () => {
  it("sends the request's fields (stream false, no empty stop, nothing undefined) and reads text, finish reason, model and usage", async () => {
    reply = json(200, {
      model: "served-model",
      choices: [{ message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    seen.length = 0;
    const client = new OpenAiChatClient({ baseUrl: `${base}/v1/`, apiKey: "k-123" });
    const answer = await client.complete({
      model: "m",
      messages: [{ role: "user", content: "Capital of France?" }],
      temperature: 0,
      max_tokens: 8,
      stop: [],
      seed: undefined,
    });
    expect(answer).toEqual({
      text: "Paris.",
      finishReason: "stop",
      model: "served-model",
      usage: { prompt_tokens: 12, completion_tokens: 3 },
      toolCalls: [],
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe("/v1/chat/completions");
    expect(seen[0]?.headers.authorization).toBe("Bearer k-123");
    expect(seen[0]?.body).toEqual({
      model: "m",
      messages: [{ role: "user", content: "Capital of France?" }],
      temperature: 0,
      max_tokens: 8,
      stream: false,
    });
  });

  it("counts absent usage as 0 tokens and a null content as empty text, naming the requested model", async () => {
    reply = json(200, { choices: [{ message: { content: null } }] });
    const answer = await new OpenAiChatClient({ baseUrl: base }).complete({ model: "m", messages: [] });
    expect(answer).toEqual({
      text: "",
      finishReason: null,
      model: "m",
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      toolCalls: [],
    });
  });

  it("offers tools, sends back an assistant's tool calls and a tool's answer, and reads the calls made", async () => {
    reply = json(200, {
      model: "m",
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              {
                id: "c1",
                type: "function",
                function: { name: "search__search", arguments: '{"query":"x"}' },
              },
              // some servers send the arguments as an object, and no id
              { type: "function", function: { name: "calc", arguments: { e: "1+1" } } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    });
    seen.length = 0;
    const tools = [
      { type: "function" as const, function: { name: "search__search", parameters: { type: "object" } } },
    ];
    const call = {
      id: "c0",
      type: "function" as const,
      function: { name: "search__search", arguments: "{}" },
    };
    const answer = await new OpenAiChatClient({ baseUrl: base }).complete({
      model: "m",
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "", tool_calls: [call] },
        { role: "tool", content: "r", tool_call_id: "c0" },
      ],
      tools,
    });
    expect(seen[0]?.body).toMatchObject({
      tools,
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "", tool_calls: [call] },
        { role: "tool", content: "r", tool_call_id: "c0" },
      ],
    });
    expect([answer.text, answer.finishReason]).toEqual(["", "tool_calls"]);
    expect(answer.toolCalls).toEqual([
      { id: "c1", type: "function", function: { name: "search__search", arguments: '{"query":"x"}' } },
      { id: "call_1", type: "function", function: { name: "calc", arguments: '{"e":"1+1"}' } },
    ]);
  });

  it("types each failure: error status (its own message; 5xx and 429 retryable), bad answer, timeout, cancel, unreachable", async () => {
    const client = new OpenAiChatClient({ baseUrl: base, timeoutMs: 200 });
    reply = json(503, { error: { message: "overloaded\nnow" } });
    const busy = await failure(client);
    expect([busy.kind, busy.status, busy.retryable, busy.message]).toEqual([
      "http",
      503,
      true,
      `${base}/v1/chat/completions answered HTTP 503: overloaded now`,
    ]);
    reply = json(429, { detail: "slow down" });
    expect((await failure(client)).retryable).toBe(true);
    reply = json(400, { message: "prompt too long" });
    const refused = await failure(client);
    expect([refused.kind, refused.status, refused.retryable]).toEqual(["http", 400, false]);
    expect(refused.message).toMatch(/prompt too long$/);
    reply = json(200, { choices: [] });
    const bad = await failure(client);
    expect([bad.kind, bad.retryable]).toEqual(["bad_response", false]);
    expect(bad.message).toContain("no choices");
    reply = () => {}; // never answers
    const slow = await failure(client);
    expect([slow.kind, slow.retryable]).toEqual(["timeout", false]);
    const controller = new AbortController();
    const pending = failure(new OpenAiChatClient({ baseUrl: base }), controller.signal);
    controller.abort();
    expect((await pending).kind).toBe("cancelled");
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const gone = await failure(new OpenAiChatClient({ baseUrl: `http://127.0.0.1:${port}` }));
    expect([gone.kind, gone.retryable]).toEqual(["unreachable", true]);
    expect(gone.message).toMatch(
      new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}/v1/chat/completions: ECONNREFUSED`),
    );
  });

  it("appends /chat/completions to a versioned API root and /v1/chat/completions to any other", () => {
    expect(
      ["http://h:8000", "http://h:8000/", "http://h/v1", "https://api.example/v1/", "http://h/prefix"].map(
        chatCompletionsUrl,
      ),
    ).toEqual([
      "http://h:8000/v1/chat/completions",
      "http://h:8000/v1/chat/completions",
      "http://h/v1/chat/completions",
      "https://api.example/v1/chat/completions",
      "http://h/prefix/v1/chat/completions",
    ]);
  });
});
