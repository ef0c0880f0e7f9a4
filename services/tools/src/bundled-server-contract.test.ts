// The contract every bundled tool server keeps, run over every entry of the registry
// and of the on-demand servers (`describe.each(TOOL_SERVER_NAMES)`), each built from its registry entry with its defaults as
// `rlf tool NAME` builds it: its MCP name is its registry name; over Streamable HTTP (in process) it
// answers /healthz, lists its tools with object input schemas, answers one call, refuses bad arguments
// with a typed tool error naming the tool, and an unknown tool with a protocol error; as a child process
// over stdio it lists the same tools and answers the same call. Registry-wide: the ports are distinct
// unprivileged ports. `CASES` is typed by the registry's names, so a server added there without its case
// here fails the typecheck.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp, connectStdio } from "@rlfactory/test-support/mcp-client";
import type { HttpServing } from "@rlfactory/toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUNDLED_TOOL_SERVER_NAMES,
  type BundledToolServerName,
  bundledToolServer,
  type OnDemandToolServerName,
  TOOL_SERVER_NAMES,
  type ToolOptionValues,
  toolServers,
} from "./index.ts";

interface ServerCase {
  /** Options as `rlf tool NAME --flag value` passes them (defaults otherwise). */
  options: ToolOptionValues;
  /** One call the server answers with its defaults, and a piece of the text it must answer. */
  call: { name: string; arguments: Record<string, unknown>; answers: string };
  /** Arguments of the same tool that fail its input schema. */
  badArguments: Record<string, unknown>;
}

/** A 2x1 PNG (red, blue), base64: the image server's case. */
const TWO_PIXELS_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4AWP4z8Dwn4Hh/38AD/kD/dtv74kAAAAASUVORK5CYII=";

const CASES: { readonly [N in BundledToolServerName | OnDemandToolServerName]: ServerCase } = {
  search: {
    options: {},
    call: { name: "search", arguments: { query: "Scott Derrickson", topk: 1 }, answers: "Scott Derrickson" },
    badArguments: { query: "" },
  },
  calculator: {
    options: {},
    call: { name: "calculate", arguments: { expression: "12 * (3 + 4)" }, answers: "= 84" },
    badArguments: { expression: 42 },
  },
  code: {
    options: { concurrency: "1", "uid-base": "61700" },
    call: { name: "run_code", arguments: { language: "python", code: "print(6 * 7)" }, answers: "42" },
    badArguments: { language: "cobol", code: "DISPLAY 1" },
  },
  sql: {
    options: {},
    call: {
      name: "query",
      arguments: { db: "pets_1", sql: "SELECT count(*) AS n FROM Pets" },
      answers: "3",
    },
    badArguments: { db: "pets_1" },
  },
  image: {
    options: {},
    call: { name: "rotate", arguments: { image: TWO_PIXELS_PNG, degrees: 90 }, answers: "1x2 image/png" },
    badArguments: { image: "not base64!", degrees: 90 },
  },
};

const INDEX_URL = new URL("./index.ts", import.meta.url).href;
/**
 * What `rlf tool NAME --stdio` runs, as a script file for a child process (not `node -e`: workers
 * inherit `--input-type`, which Node refuses for a file entry such as the calculator's worker).
 */
const scratch = mkdtempSync(join(tmpdir(), "rlf-bundled-servers-"));
const SERVE_STDIO = join(scratch, "serve-stdio.mjs");
writeFileSync(
  SERVE_STDIO,
  `import { bundledToolServer } from ${JSON.stringify(INDEX_URL)};
const [name, options] = [process.argv[2], JSON.parse(process.argv[3])];
const server = await bundledToolServer(name).create(options);
await server.serveStdio();
`,
);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

describe("the bundled tool server registry", () => {
  it("gives every server its own unprivileged port, and finds only its own entries", () => {
    const ports = BUNDLED_TOOL_SERVER_NAMES.map((n) => toolServers[n].port);
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(Number.isInteger(port) && port >= 1024 && port <= 65_535).toBe(true);
    expect(bundledToolServer("__proto__")).toBeUndefined();
    expect(bundledToolServer("toString")).toBeUndefined();
  });
});

describe.each(TOOL_SERVER_NAMES)("bundled tool server %s", (name) => {
  const testCase = CASES[name];
  const entry = bundledToolServer(name)!;
  let serving: HttpServing;
  let client: Client;
  let toolNames: string[];

  beforeAll(async () => {
    const server = await entry.create(testCase.options);
    expect(server.name).toBe(name);
    serving = await server.serveHttp({ port: 0 });
    client = await connectHttp(serving.url, "2025-11-25");
  });
  afterAll(async () => {
    await client?.close();
    await serving?.close();
  });

  it("has a summary, and its usage names each of its own options", () => {
    expect(entry.summary).not.toBe("");
    for (const flag of Object.keys(entry.options)) expect(entry.usage).toContain(`--${flag}`);
  });

  it("answers /healthz and lists its tools, each with a description and an object input schema", async () => {
    expect((await fetch(new URL("/healthz", serving.url))).ok).toBe(true);
    const { tools } = await client.listTools();
    toolNames = tools.map((t) => t.name);
    expect(toolNames).toContain(testCase.call.name);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe("object");
    }
  });

  it("answers a call", async () => {
    const result = await client.callTool({ name: testCase.call.name, arguments: testCase.call.arguments });
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(textOf(result)).toContain(testCase.call.answers);
  });

  it("refuses bad arguments with a tool error naming the tool, and an unknown tool with a protocol error", async () => {
    const bad = await client.callTool({ name: testCase.call.name, arguments: testCase.badArguments });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(new RegExp(`^Invalid arguments for tool ${testCase.call.name}: `));
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(
      /Unknown tool: no_such_tool/,
    );
  });

  it("serves the same tools and answers the same call over stdio, as a child process", async () => {
    const stdio = await connectStdio(
      {
        command: process.execPath,
        args: [SERVE_STDIO, name, JSON.stringify(testCase.options)],
        stderr: "ignore",
      },
      "2025-11-25",
    );
    try {
      const { tools } = await stdio.listTools();
      expect(tools.map((t) => t.name)).toEqual(toolNames);
      const result = await stdio.callTool({ name: testCase.call.name, arguments: testCase.call.arguments });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(textOf(result)).toContain(testCase.call.answers);
    } finally {
      await stdio.close();
    }
  });
});
