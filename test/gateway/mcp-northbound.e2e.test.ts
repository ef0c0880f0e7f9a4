// The gateway as an MCP server (docs/mcp.md): the official MCP TypeScript SDK client, in both protocol
// eras (2025-11-25 sessions, 2026-07-28 stateless), and the official Python SDK client, against `/mcp`
// of a real gateway whose upstreams are real MCP servers in child processes. Every policy is the
// gateway's own: API keys, deadlines, the result cache; episodes through the reserved tools.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type CallToolResult,
  type ClientOptions,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { deferred } from "@rlfactory/test-support/deferred";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { ERAS, type Era, newClient } from "@rlfactory/test-support/mcp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KEY = "mcp-northbound-test-key";
const PYTHON = join(ROOT, "services/environments/.venv/bin/python");
const PY_CLIENT = join(ROOT, "test/support/python/mcp_gateway_client.py");
const KV = [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"];

const eventsFile = join(tempDir(), "events.jsonl");
/** How many times the testbed executed `tool` with `args.value === value` (the upstream's own record). */
const executions = (tool: string, value: unknown): number => {
  try {
    return readFileSync(eventsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; tool: string; args: { value?: unknown } })
      .filter((e) => e.event === "executed" && e.tool === tool && e.args.value === value).length;
  } catch {
    return 0;
  }
};

let gw: InProcessGateway;
let mcpUrl: string;

beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: { api_keys: [KEY] },
      servers: {
        testbed: testbedStdio(eventsFile, { tools: { echo: { cache: true, cache_ttl_ms: 60_000 } } }),
        kv: { command: process.execPath, args: KV },
      },
    },
    { apiKey: KEY },
  );
  mcpUrl = `${gw.gateway.adminUrl}/mcp`;
}, 60_000);
afterAll(() => gw?.stop());

/** Hits of the gateway's result cache for the testbed server, from its Prometheus metrics. */
async function cacheHits(): Promise<number> {
  const text = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith('rlf_gateway_cache_requests_total{server="testbed",result="hit"}'));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

async function connect(era: Era, key: string | undefined = KEY, options: ClientOptions = {}) {
  const client = newClient(era, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
    }),
  );
  return client;
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;

describe.each(ERAS)("MCP TypeScript SDK client, protocol %s", (era) => {
  it("negotiates the era, lists the merged catalog and the reserved episode tools, and calls a tool", async () => {
    const client = await connect(era);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(era);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "testbed__echo",
          "kv__put",
          "rlf_episode_start",
          "rlf_episode_fork",
          "rlf_episode_snapshot",
          "rlf_episode_end",
        ]),
      );
      // A stateful environment tool takes the episode handle as an argument.
      const put = tools.find((t) => t.name === "kv__put");
      expect(put?.inputSchema.required).toContain("rlf_episode");
      const r = await client.callTool({ name: "testbed__echo", arguments: { value: `hello-${era}` } });
      expect(r.isError).toBeFalsy();
      expect(structured(r)).toEqual({ value: `hello-${era}` });
    } finally {
      await client.close();
    }
  });

  it("a repeated cacheable call is served from the gateway's cache: one upstream execution, one more hit", async () => {
    const client = await connect(era);
    try {
      const marker = `cached-${era}-${process.pid}`;
      const before = await cacheHits();
      const first = await client.callTool({ name: "testbed__echo", arguments: { value: marker } });
      const second = await client.callTool({ name: "testbed__echo", arguments: { value: marker } });
      expect(structured(second)).toEqual(structured(first));
      expect(executions("echo", marker)).toBe(1);
      expect(await cacheHits()).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it("a deadline from _meta that passes is a TIMEOUT tool error", async () => {
    const client = await connect(era);
    try {
      const r = await client.callTool({
        name: "testbed__sleep",
        arguments: { ms: 30_000 },
        _meta: { "rlfactory/deadline_ms": 200 },
      });
      expect(r.isError).toBe(true);
      expect(structured(r)).toMatchObject({ error: { code: "TIMEOUT" } });
      expect((r.content as { text: string }[])[0]?.text).toMatch(/^TIMEOUT: /);
    } finally {
      await client.close();
    }
  });

  it("a call without the API key is refused and never reaches the upstream", async () => {
    const marker = `unauthorised-${era}-${process.pid}`;
    const attempt = async () => {
      const client = await connect(era, "wrong-key");
      try {
        await client.callTool({ name: "testbed__echo", arguments: { value: marker } });
      } finally {
        await client.close();
      }
    };
    await expect(attempt()).rejects.toThrow();
    expect(executions("echo", marker)).toBe(0);
  });

  it("episode lifecycle through the reserved tools: start, calls with the handle, fork, snapshot, end", async () => {
    const client = await connect(era);
    try {
      const started = await client.callTool({
        name: "rlf_episode_start",
        arguments: { server: "kv", config: { initial: { seed: "s" } } },
      });
      const id = structured(started).episode_id as string;
      expect(id).toEqual(expect.any(String));
      const put = await client.callTool({
        name: "kv__put",
        arguments: { key: "a", value: "1", rlf_episode: id },
      });
      expect(put.isError).toBeFalsy();
      const forked = await client.callTool({
        name: "rlf_episode_fork",
        arguments: { episode_id: id, count: 1 },
      });
      const [fork] = structured(forked).episode_ids as string[];
      await client.callTool({ name: "kv__put", arguments: { key: "a", value: "fork", rlf_episode: fork } });
      const got = await client.callTool({ name: "kv__get", arguments: { key: "a", rlf_episode: id } });
      expect(structured(got)).toEqual({ value: "1" });
      const snap = await client.callTool({ name: "rlf_episode_snapshot", arguments: { episode_id: fork } });
      expect(structured(snap)).toEqual({ state: { seed: "s", a: "fork" } });
      const ended = await client.callTool({ name: "rlf_episode_end", arguments: { episode_id: id } });
      expect(structured(ended)).toEqual({ state: { seed: "s", a: "1" } });
      const after = await client.callTool({ name: "kv__get", arguments: { key: "a", rlf_episode: id } });
      expect(after.isError).toBe(true);
      expect(structured(after)).toMatchObject({ error: { code: "EPISODE_NOT_FOUND" } });
      await client.callTool({ name: "rlf_episode_end", arguments: { episode_id: fork } });
    } finally {
      await client.close();
    }
  });
  it("a URL bound to an episode (?rlf_episode=ID) runs an unmodified client's calls in that episode", async () => {
    const admin = await connect(era);
    const started = await admin.callTool({
      name: "rlf_episode_start",
      arguments: { server: "kv", config: { initial: { seed: "s" } } },
    });
    const id = structured(started).episode_id as string;
    const client = newClient(era);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcpUrl}?rlf_episode=${id}&rlf_trajectory=t-1`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const put = tools.find((t) => t.name === "kv__put");
      expect(put?.inputSchema.properties).not.toHaveProperty("rlf_episode");
      expect(tools.map((t) => t.name)).not.toContain("rlf_episode_start");
      // no handle in the arguments: the URL's episode is used
      const r = await client.callTool({ name: "kv__put", arguments: { key: "b", value: "2" } });
      expect(r.isError).toBeFalsy();
      const ended = await admin.callTool({ name: "rlf_episode_end", arguments: { episode_id: id } });
      expect(structured(ended)).toEqual({ state: { seed: "s", b: "2" } });
    } finally {
      await client.close();
      await admin.close();
    }
  });
});

describe("2026-07-28 over plain HTTP", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        authorization: `Bearer ${KEY}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "curl", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  /** The JSON-RPC answer, from a JSON body or the SSE stream's data line. */
  const answer = async (res: Response) => {
    const text = await res.text();
    const data = text.startsWith("{")
      ? text
      : (text
          .split("\n")
          .find((l) => l.startsWith("data: "))
          ?.slice(6) ?? "");
    return JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number } };
  };

  it("server/discover and a self-contained tools/call need no session", async () => {
    const discover = await post(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope } },
      { "mcp-method": "server/discover" },
    );
    expect(discover.headers.get("mcp-session-id")).toBeNull();
    const d = await answer(discover);
    expect(d.result?.supportedVersions).toContain("2026-07-28");
    const call = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "testbed__echo", arguments: { value: "plain" }, _meta: envelope },
      },
      { "mcp-method": "tools/call", "mcp-name": "testbed__echo" },
    );
    expect(call.status).toBe(200);
    expect((await answer(call)).result?.structuredContent).toEqual({ value: "plain" });
  });

  it("a Host header naming another site (DNS rebinding) is refused on the loopback endpoint", async () => {
    const url = new URL(mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: { host: "evil.example:80", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } }));
    });
    expect(status).toBe(403);
  });

  it("without the API key: 401", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: envelope } },
      { authorization: "Bearer nope", "mcp-method": "tools/list" },
    );
    expect(res.status).toBe(401);
  });
});

describe.each(ERAS)("tools/list_changed, protocol %s", (era) => {
  it("an upstream's catalog change reaches the connected client", async () => {
    const changed = deferred<Tool[]>();
    const client = await connect(era, KEY, {
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, listed) => (error ? changed.reject(error) : changed.resolve(listed ?? [])),
        },
      },
    });
    try {
      await client.listTools();
      const name = `added_${era.replaceAll("-", "_")}`;
      const added = await client.callTool({ name: "testbed__add_tool", arguments: { name } });
      expect(added.isError).toBeFalsy();
      expect((await changed.promise).map((t) => t.name)).toContain(`testbed__${name}`);
    } finally {
      await client.close();
    }
  });
});

describe("MCP Python SDK client (mcp, 2025-11-25) and plain 2026-07-28 requests from Python", () => {
  it("lists, calls, a cached call, a deadline, an unauthorised call and an episode lifecycle", async () => {
    const { stdout } = await promisify(execFile)(PYTHON, [PY_CLIENT, mcpUrl, KEY], { timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<
      string,
      Record<string, unknown>
    >;
    for (const era of ["2025-11-25", "2026-07-28"]) {
      expect(report[era]).toMatchObject({
        protocol: era,
        listed: true,
        echo: "py",
        cached_second_hit: true,
        deadline_code: "TIMEOUT",
        unauthorised_refused: true,
        episode_final_state: { a: "1" },
      });
    }
  });
});

describe("rlf gateway --mcp-stdio", () => {
  it("serves the same MCP server on stdin/stdout, logs on stderr", async () => {
    const dir = tempDir("rlf-mcp-stdio-");
    const config = join(dir, "gateway.json");
    writeFileSync(
      config,
      JSON.stringify({ grpc: { port: 0 }, admin: { port: 0 }, servers: { testbed: testbedStdio() } }),
    );
    const client = newClient("2025-11-25");
    let stderr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RLF, "gateway", "--config", config, "--mcp-stdio"],
      cwd: ROOT,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    await client.connect(transport);
    try {
      await waitFor(
        async () => (await client.listTools()).tools.some((t) => t.name === "testbed__echo"),
        30_000,
        "testbed tools",
      );
      const r = await client.callTool({ name: "testbed__echo", arguments: { value: "stdio" } });
      expect(structured(r)).toEqual({ value: "stdio" });
      expect(stderr).toContain("gateway listening");
    } finally {
      await client.close();
    }
  }, 60_000);
});
