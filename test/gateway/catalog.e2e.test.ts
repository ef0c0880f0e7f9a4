// A gateway fronting real MCP servers in child processes: our calculator over Streamable HTTP
// (2026-07-28, stateless), our testbed over stdio, and the third-party reference "everything" server
// from npm (a 2025-era server) over stdio and over Streamable HTTP (sessions). Every tool is listed
// under `server__tool` and called.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { WireToolResult } from "@rlfactory/gateway";
import {
  EVERYTHING,
  freePort,
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  stopChild,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Arguments for every tool we call, by gateway name. Tools left out are listed in `notCalled`. */
const CALLS: Record<string, { args: Record<string, unknown>; check: (r: WireToolResult) => void }> = {
  calculator__calculate: {
    args: { expression: "12 * (3 + 4)" },
    check: (r) => expect(JSON.parse(r.structured_content_json)).toMatchObject({ result: 84 }),
  },
  testbed__sleep: {
    args: { ms: 1 },
    check: (r) => expect(JSON.parse(r.structured_content_json)).toEqual({ slept: 1 }),
  },
  testbed__rendezvous: {
    args: { group: "catalog", parties: 1 },
    check: (r) => expect(JSON.parse(r.structured_content_json)).toEqual({ met: 1 }),
  },
  testbed__echo: {
    args: { value: { a: [1] } },
    check: (r) => expect(JSON.parse(r.structured_content_json)).toEqual({ value: { a: [1] } }),
  },
  testbed__fail: { args: { message: "expected" }, check: (r) => expect(r.is_error).toBe(true) },
  testbed__big: { args: { bytes: 10 }, check: (r) => expect(r.content[0]?.text?.text).toBe("x".repeat(10)) },
  testbed__image: { args: {}, check: (r) => expect(r.content[0]?.image?.mime_type).toBe("image/png") },
  testbed__pid: {
    args: {},
    check: (r) => expect(JSON.parse(r.structured_content_json).pid).toBeGreaterThan(0),
  },
  testbed__add_tool: { args: { name: "extra" }, check: (r) => expect(r.is_error).toBe(false) },
  testbed__not_idempotent: { args: {}, check: (r) => expect(r.is_error).toBe(false) },
  everything__echo: {
    args: { message: "hi" },
    check: (r) => expect(r.content[0]?.text?.text).toBe("Echo: hi"),
  },
  "everything__get-sum": {
    args: { a: 2, b: 3 },
    check: (r) => expect(r.content[0]?.text?.text).toContain("5"),
  },
  everything_http__echo: {
    args: { message: "over http" },
    check: (r) => expect(r.content[0]?.text?.text).toBe("Echo: over http"),
  },
  "everything_http__get-sum": {
    args: { a: 40, b: 2 },
    check: (r) => expect(r.content[0]?.text?.text).toContain("42"),
  },

  "everything__get-tiny-image": {
    args: {},
    check: (r) =>
      expect(r.content.some((c) => c.image?.mime_type === "image/png" && c.image.data.length > 0)).toBe(true),
  },
  "everything__get-structured-content": {
    args: { location: "New York" },
    check: (r) => expect(JSON.parse(r.structured_content_json)).toHaveProperty("temperature"),
  },
  "everything__get-annotated-message": {
    args: { messageType: "error" },
    check: (r) => expect(r.content.length).toBeGreaterThan(0),
  },
  "everything__get-resource-links": {
    args: { count: 2 },
    check: (r) => expect(r.content.some((c) => c.resource_link)).toBe(true),
  },
  "everything__get-resource-reference": {
    args: {},
    check: (r) => expect(r.content.some((c) => c.resource)).toBe(true),
  },
  "everything__get-env": { args: {}, check: (r) => expect(r.content[0]?.text?.text).toContain("PATH") },
  "everything__toggle-simulated-logging": { args: {}, check: (r) => expect(r.is_error).toBe(false) },
  "everything__toggle-subscriber-updates": { args: {}, check: (r) => expect(r.is_error).toBe(false) },
  "everything__trigger-long-running-operation": {
    args: { duration: 0.2, steps: 2 },
    check: (r) => expect(r.is_error).toBe(false),
  },
};
/** Not called: it downloads a file from the internet, which this test must not do. */
const notCalled = new Set(["everything__gzip-file-as-resource", "everything__simulate-research-query"]);

describe("a gateway over three real MCP servers", () => {
  let calculator: ChildProcess;
  let everythingHttp: ChildProcess;
  let gw: InProcessGateway;

  beforeAll(async () => {
    calculator = spawn(process.execPath, [RLF, "tool", "calculator", "--http", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      calculator.once("exit", (code) => reject(new Error(`calculator exited with ${code}`)));
      createInterface({ input: calculator.stderr! }).on("line", (line) => {
        try {
          const rec = JSON.parse(line) as { msg?: string; url?: string };
          if (rec.msg === "listening" && rec.url) resolve(rec.url);
        } catch {
          // not JSON
        }
      });
    });
    const port = await freePort();
    everythingHttp = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port) },
      stdio: "ignore",
    });
    const everythingUrl = `http://127.0.0.1:${port}/mcp`;
    await waitFor(
      () => fetch(everythingUrl, { method: "GET" }).then(() => true),
      15_000,
      "everything over HTTP",
    );
    gw = await startTestGateway({
      servers: {
        calculator: { url },
        testbed: testbedStdio(),
        everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
        everything_http: { url: everythingUrl, include: ["echo", "get-sum"] },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    if (calculator) await stopChild(calculator);
    if (everythingHttp) await stopChild(everythingHttp);
  });

  it("negotiates each server's protocol era", () => {
    const detail = Object.fromEntries(gw.gateway.upstreams.map((u) => [u.name, u.detail]));
    expect(detail.calculator).toBe("protocol 2026-07-28");
    expect(detail.everything).toMatch(/^protocol 2025-/);
    expect(detail.everything_http).toMatch(/^protocol 2025-/);
  });

  it("lists every tool with a namespaced name", async () => {
    const tools = await gw.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [...Object.keys(CALLS).filter((n) => !n.endsWith("__extra")), ...notCalled]) {
      expect(names).toContain(name);
    }
    expect(
      names.every((n) => /^(calculator|testbed|everything|everything_http)__[a-zA-Z0-9._-]+$/.test(n)),
    ).toBe(true);
    expect(names.filter((n) => n.startsWith("everything_http__"))).toEqual([
      "everything_http__echo",
      "everything_http__get-sum",
    ]);
    const calc = tools.find((t) => t.name === "calculator__calculate");
    expect(calc).toMatchObject({ server: "calculator", upstream_name: "calculate" });
    expect(JSON.parse(calc?.input_schema_json ?? "{}")).toMatchObject({
      properties: { expression: { type: "string" } },
    });
    expect(calc?.annotations).toMatchObject({ read_only_hint: true, idempotent_hint: true });
  });

  it("calls every listed tool", async () => {
    const listed = (await gw.client.listTools()).map((t) => t.name).filter((n) => !notCalled.has(n));
    const missing = listed.filter((n) => !CALLS[n]);
    expect(missing.filter((n) => n !== "testbed__extra")).toEqual([]);
    const results = await gw.client.callTools({
      calls: Object.entries(CALLS).map(([name, { args }]) => ({
        name,
        arguments_json: JSON.stringify(args),
        deadline_ms: 20_000,
      })),
    });
    Object.keys(CALLS).forEach((name, i) => {
      const r = results[i]!;
      expect({ name, code: r.error_code, message: r.error_message }).toEqual({
        name,
        code: "OK",
        message: "",
      });
      CALLS[name]!.check(r);
    });
  });
});
