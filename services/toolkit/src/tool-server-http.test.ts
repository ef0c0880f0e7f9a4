// In-process tool server over real HTTP (127.0.0.1, port 0), driven by the SDK v2 client in both
// protocol eras.
import { Writable } from "node:stream";
import type { Client, Tool } from "@modelcontextprotocol/client";
import { type Deferred, deferred } from "@rlfactory/test-support/deferred";
import { connectHttp, ERAS } from "@rlfactory/test-support/mcp-client";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { type HttpServing, KEEP_ALIVE_MS } from "./http-endpoint.ts";
import { rawResult } from "./raw-result.ts";
import { ToolError } from "./tool-error.ts";
import { createToolServer, type ToolServer } from "./tool-server.ts";

/** Log lines written by the server under test. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});

/** One deferred per key, created by whichever side asks first. */
function deferreds<T>() {
  const map = new Map<string, Deferred<T>>();
  return (key: string) => {
    let entry = map.get(key);
    if (entry === undefined) {
      entry = deferred<T>();
      map.set(key, entry);
    }
    return entry;
  };
}
/** `wait_for_cancel` calls by tag: when the handler started, and the abort reason it saw. */
const started = deferreds<void>();
const cancellation = deferreds<string>();

const tools = [
  defineTool({
    name: "add",
    title: "Add",
    description: "Adds two numbers.",
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: async ({ a, b }) => ({ sum: a + b }),
    render: ({ sum }) => `the sum is ${sum}`,
  }),
  defineTool({
    name: "refuse",
    description: "Fails with a ToolError.",
    input: z.object({ why: z.string() }),
    handler: async ({ why }) => {
      throw new ToolError(`refused: ${why}`);
    },
  }),
  defineTool({
    name: "crash",
    description: "Throws an unexpected error.",
    input: z.object({}),
    handler: async () => {
      throw new Error("secret database password in this message");
    },
  }),
  defineTool({
    name: "wrong_output",
    description: "Returns output that breaks its own schema.",
    input: z.object({}),
    output: z.object({ n: z.number() }),
    handler: async () => ({ n: "not a number" }) as unknown as { n: number },
  }),
  defineTool({
    name: "blocks",
    description: "Returns raw content blocks.",
    input: z.object({}),
    handler: async () =>
      rawResult([
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ]),
  }),
  defineTool({
    name: "wait_for_cancel",
    description: "Runs until cancelled.",
    input: z.object({ tag: z.string() }),
    handler: async ({ tag }, ctx) => {
      started(tag).resolve();
      const { promise, resolve } = deferred<string>();
      ctx.signal.addEventListener("abort", () => {
        cancellation(tag).resolve(String(ctx.signal.reason));
        resolve("aborted");
      });
      return promise;
    },
  }),
];

let server: ToolServer;
let serving: HttpServing;

beforeAll(async () => {
  server = createToolServer({ name: "unit", version: "1.2.3", tools, logger: pino(logSink) });
  serving = await server.serveHttp({ port: 0 });
});

afterAll(async () => {
  await serving.close();
});

describe("HTTP endpoint", () => {
  it("answers /healthz", async () => {
    const response = await fetch(new URL("/healthz", serving.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("keeps idle connections open longer than the gateway's pool does, so the client always closes first", async () => {
    const response = await fetch(new URL("/healthz", serving.url));
    await response.arrayBuffer();
    // 65 s against the gateway's 30 s (gateway/src/http-fetch.ts): Node's default of 5 s let the server
    // close a connection just as the gateway sent a call on it
    expect(response.headers.get("keep-alive")).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    expect(KEEP_ALIVE_MS).toBeGreaterThan(30_000);
  });

  it("binds the requested port and serves /mcp only", async () => {
    expect(serving.url).toBe(`http://127.0.0.1:${serving.port}/mcp`);
    expect((await fetch(new URL("/other", serving.url))).status).toBe(404);
  });
});

for (const era of ERAS) {
  describe(`tool calls, protocol ${era}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await connectHttp(serving.url, era);
    });
    afterAll(async () => {
      await client.close();
    });

    it("negotiates the era", () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(era);
    });

    it("lists tools with schemas, title and annotations", async () => {
      const { tools: listed } = await client.listTools();
      const add = listed.find((t) => t.name === "add");
      expect(add).toMatchObject({
        title: "Add",
        description: "Adds two numbers.",
        inputSchema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
        outputSchema: { type: "object", properties: { sum: { type: "number" } } },
        annotations: { readOnlyHint: true, idempotentHint: true },
      });
      expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    });

    it("returns structured output with its text rendering", async () => {
      const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ sum: 5 });
      expect(result.content).toEqual([{ type: "text", text: "the sum is 5" }]);
    });

    it("turns a ToolError into an isError result with its message", async () => {
      const result = await client.callTool({ name: "refuse", arguments: { why: "no" } });
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "refused: no" }] });
    });

    it("reports invalid arguments in one line naming the field", async () => {
      const result = await client.callTool({ name: "add", arguments: { a: 1, b: "two" } });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: "text", text: "Invalid arguments for tool add: b: expected number, received string" },
      ]);
      const missing = await client.callTool({ name: "add", arguments: { a: 1 } });
      expect(missing.content).toEqual([
        { type: "text", text: "Invalid arguments for tool add: b is required" },
      ]);
    });

    it("hides unexpected errors behind a generic message and logs them", async () => {
      const result = await client.callTool({ name: "crash", arguments: {} });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "internal error in tool crash" }],
      });
      expect(JSON.stringify(result)).not.toContain("password");
      expect(
        logLines.some((line) => line.includes("secret database password") && line.includes('"stack"')),
      ).toBe(true);

      const broken = await client.callTool({ name: "wrong_output", arguments: {} });
      expect(broken.content).toEqual([{ type: "text", text: "internal error in tool wrong_output" }]);
    });

    it("passes raw content blocks through", async () => {
      const result = await client.callTool({ name: "blocks", arguments: {} });
      expect(result.content).toEqual([
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ]);
      expect(result.structuredContent).toBeUndefined();
    });

    it("answers an unknown tool with a protocol error", async () => {
      await expect(client.callTool({ name: "missing", arguments: {} })).rejects.toThrow(
        /Unknown tool: missing/,
      );
    });

    it("aborts ctx.signal when the client cancels", async () => {
      const tag = `cancel-${era}`;
      const controller = new AbortController();
      const call = client.callTool(
        { name: "wait_for_cancel", arguments: { tag } },
        { signal: controller.signal },
      );
      await started(tag).promise;
      controller.abort("test cancels");
      await expect(call).rejects.toThrow();
      await expect(cancellation(tag).promise).resolves.toBeTypeOf("string");
    });
  });
}

describe("2025-era sessions", () => {
  const post = (url: string, body: unknown, sessionId?: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(sessionId === undefined
          ? {}
          : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }),
      },
      body: JSON.stringify(body),
    });

  it("are closed once idle, so clients that vanish without DELETE leak nothing", async () => {
    const idle = await createToolServer({
      name: "idle",
      version: "0",
      tools,
      logger: pino(logSink),
    }).serveHttp({
      port: 0,
      sessionIdleTimeoutMs: 50,
    });
    try {
      const init = await post(idle.url, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      });
      expect(init.status).toBe(200);
      await init.body?.cancel();
      const sessionId = init.headers.get("mcp-session-id");
      expect(sessionId).toBeTruthy();

      // Each ping is activity too: probe less often than the idle timeout.
      let status = 0;
      for (let i = 0; i < 25 && status !== 404; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const ping = await post(idle.url, { jsonrpc: "2.0", id: 2 + i, method: "ping" }, sessionId!);
        status = ping.status;
        await ping.body?.cancel();
      }
      expect(status).toBe(404);
    } finally {
      await idle.close();
    }
  });
});

describe("tools added at runtime", () => {
  for (const era of ERAS) {
    it(`reach connected clients via tools/list_changed (${era})`, async () => {
      const changed = deferred<Tool[]>();
      const client = await connectHttp(serving.url, era, {
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, listed) => (error ? changed.reject(error) : changed.resolve(listed ?? [])),
          },
        },
      });
      try {
        await client.listTools();
        const name = `late_${era.replaceAll("-", "_")}`;
        server.addTool(
          defineTool({ name, description: "Added late.", input: z.object({}), handler: async () => "late" }),
        );
        const listed = await changed.promise;
        expect(listed.map((t) => t.name)).toContain(name);
        expect(await client.callTool({ name, arguments: {} })).toMatchObject({
          content: [{ type: "text", text: "late" }],
        });
      } finally {
        await client.close();
      }
    });
  }

  it("refuses a duplicate name", () => {
    expect(() => server.addTool(tools[0]!)).toThrow(/already registered/);
  });
});

describe("extra HTTP routes", () => {
  it("serves JSON routes beside /mcp, with typed errors for bad bodies", async () => {
    const server = createToolServer({
      name: "routes",
      version: "1.0.0",
      tools: [],
      routes: [
        {
          method: "POST",
          path: "/double",
          handler: async (body) => ({
            status: 200,
            body: { doubled: 2 * Number((body as { n: number }).n) },
          }),
        },
      ],
    });
    const serving = await server.serveHttp({ port: 0 });
    try {
      const base = `http://127.0.0.1:${serving.port}`;
      const ok = await fetch(`${base}/double`, { method: "POST", body: JSON.stringify({ n: 21 }) });
      expect(await ok.json()).toEqual({ doubled: 42 });
      const bad = await fetch(`${base}/double`, { method: "POST", body: "{nope" });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toMatch(/not valid JSON/);
      expect((await fetch(`${base}/double`)).status).toBe(404);
    } finally {
      await serving.close();
    }
  });
});
