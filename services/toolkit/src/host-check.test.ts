// DNS rebinding: a tool server on loopback answers only requests whose Host header names a loopback
// host, on every route (/mcp, /healthz and the server's extra routes alike).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServing } from "./http-endpoint.ts";
import { createToolServer } from "./tool-server.ts";

/** Sends one request with the given Host header (fetch may not set it) and returns the status. */
function statusWithHost(port: number, method: string, path: string, host: string, body?: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path, headers: { host, "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("Host header check", () => {
  let serving: HttpServing;
  let calls = 0;
  beforeAll(async () => {
    const server = createToolServer({
      name: "host-check",
      version: "1.0.0",
      tools: [],
      routes: [
        {
          method: "POST",
          path: "/echo",
          handler: async (body) => {
            calls++;
            return { status: 200, body };
          },
        },
      ],
    });
    serving = await server.serveHttp({ port: 0 });
  });
  afterAll(() => serving.close());

  const routes = [
    ["POST", "/echo", "{}"],
    ["GET", "/healthz", undefined],
    ["POST", "/mcp", '{"jsonrpc":"2.0","id":1,"method":"ping"}'],
    ["GET", "/nowhere", undefined],
  ] as const;

  it.each(routes)(
    "%s %s with a foreign Host is refused with 403 before it is served",
    async (method, path, body) => {
      const before = calls;
      expect(await statusWithHost(serving.port, method, path, "attacker.example:80", body)).toBe(403);
      expect(await statusWithHost(serving.port, method, path, `evil.example:${serving.port}`, body)).toBe(
        403,
      );
      expect(calls).toBe(before);
    },
  );

  it("serves the same routes to loopback Host names", async () => {
    for (const host of [`127.0.0.1:${serving.port}`, `localhost:${serving.port}`, `[::1]:${serving.port}`]) {
      expect(await statusWithHost(serving.port, "POST", "/echo", host, "{}")).toBe(200);
      expect(await statusWithHost(serving.port, "GET", "/healthz", host)).toBe(200);
      expect(await statusWithHost(serving.port, "GET", "/nowhere", host)).toBe(404);
    }
    expect(calls).toBe(3);
  });
});
