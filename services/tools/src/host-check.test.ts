// DNS rebinding, over every bundled tool server (the on-demand ones too) as `rlf tool NAME --http PORT`
// builds it: on loopback, every HTTP route (/mcp, /healthz and the server's own routes: search's
// /retrieve, code's /run_code) refuses a request whose Host header names another host with 403,
// before the route runs.
import { request } from "node:http";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BundledToolServerName,
  bundledToolServer,
  type OnDemandToolServerName,
  TOOL_SERVER_NAMES,
  type ToolOptionValues,
} from "./index.ts";

type ServerName = BundledToolServerName | OnDemandToolServerName;

const OPTIONS: { readonly [N in ServerName]: ToolOptionValues } = {
  search: {},
  calculator: {},
  code: { concurrency: "1", "uid-base": "61750" },
  sql: {},
  image: {},
};

/** Each server's own routes beside /mcp and /healthz, with a body that would otherwise be served. */
const OWN_ROUTES: { readonly [N in ServerName]: ReadonlyArray<readonly [string, unknown]> } = {
  search: [["/retrieve", { queries: ["Scott Derrickson"], topk: 1 }]],
  calculator: [],
  code: [["/run_code", { code: "print('ran')", language: "python" }]],
  sql: [],
  image: [],
};

function send(port: number, method: string, path: string, host: string, body?: unknown) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe.each(TOOL_SERVER_NAMES)("%s over HTTP on loopback", (name) => {
  let serving: HttpServing;
  beforeAll(async () => {
    const server = await bundledToolServer(name)!.create(OPTIONS[name]);
    serving = await server.serveHttp({ port: 0 });
  });
  afterAll(() => serving?.close());

  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "host-check", version: "1" },
    },
  };
  const routes = () => [
    ["POST", "/mcp", initialize] as const,
    ["GET", "/healthz", undefined] as const,
    ...OWN_ROUTES[name].map(([path, body]) => ["POST", path, body] as const),
  ];

  it("refuses every route to a foreign Host with 403", async () => {
    for (const [method, path, body] of routes()) {
      for (const host of ["attacker.example", `rebound.example:${serving.port}`]) {
        const answer = await send(serving.port, method, path, host, body);
        expect({ path, host, status: answer.status }).toEqual({ path, host, status: 403 });
        expect(answer.text).not.toContain("ran");
      }
    }
  });

  it("serves the same routes to a loopback Host", async () => {
    for (const [method, path, body] of routes()) {
      const answer = await send(serving.port, method, path, `localhost:${serving.port}`, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    }
  });
});
