// A scripted OpenAI-compatible chat endpoint: a TEST FIXTURE, not a model. `POST /v1/chat/completions`
// answers reply k of the script to a request whose messages hold k + 1 `user` messages (a
// conversation's k-th request), so concurrent conversations each get the script in order; it records
// each request;
// `GET /v1/models` lists one model, `scripted-chat-fixture`. It stands in for the LLM user simulator's
// endpoint (or any chat endpoint) on loopback. A reply may be a status code to answer with instead.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const SCRIPTED_CHAT_MODEL = "scripted-chat-fixture";

export type ScriptedChatReply = string | { status: number };

export interface ScriptedChatRequest {
  model: unknown;
  messages: { role: string; content: string }[];
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export interface ScriptedChatFixture {
  /** `http://127.0.0.1:PORT` (the API lives under `/v1`). */
  url: string;
  /** Every chat request, in arrival order. */
  requests: ScriptedChatRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the fixture on a free loopback port. A conversation past the end of the script gets a 500. */
export async function startScriptedChatFixture(
  script: readonly ScriptedChatReply[],
): Promise<ScriptedChatFixture> {
  const requests: ScriptedChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/v1/models") {
      send(200, { object: "list", data: [{ id: SCRIPTED_CHAT_MODEL, object: "model" }] });
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      send(404, { error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } });
      return;
    }
    void readBody(req).then((text) => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        send(400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
        return;
      }
      requests.push({
        model: body.model,
        messages: (body.messages ?? []) as ScriptedChatRequest["messages"],
        body,
        authorization: req.headers.authorization,
      });
      const k = Math.max(0, requests.at(-1)!.messages.filter((m) => m.role === "user").length - 1);
      const reply = script[k];
      if (reply === undefined) {
        send(500, { error: { message: `the script has no reply ${k}`, type: "server_error" } });
        return;
      }
      if (typeof reply !== "string") {
        send(reply.status, { error: { message: `scripted status ${reply.status}`, type: "server_error" } });
        return;
      }
      send(200, {
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        model: SCRIPTED_CHAT_MODEL,
        choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
