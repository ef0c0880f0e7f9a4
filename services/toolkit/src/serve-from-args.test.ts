import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectHttp } from "@rlfactory/test-support/mcp-client";
import {
  readTestbedEvents,
  startTestbedHttp,
  TESTBED_SERVER_PATH,
  waitForTestbedEvent,
} from "@rlfactory/test-support/testbed-process";
import { describe, expect, it } from "vitest";
import { parseServeArgs, ServeArgsError } from "./serve-from-args.ts";

describe("parseServeArgs", () => {
  it("defaults to stdio and parses --http PORT [--host H]", () => {
    expect(parseServeArgs([])).toEqual({ transport: "stdio" });
    expect(parseServeArgs(["--stdio"])).toEqual({ transport: "stdio" });
    expect(parseServeArgs(["--http", "8080"])).toEqual({ transport: "http", port: 8080, host: "127.0.0.1" });
    expect(parseServeArgs(["--http", "0", "--host", "0.0.0.0"])).toEqual({
      transport: "http",
      port: 0,
      host: "0.0.0.0",
    });
  });

  it("rejects anything else with the usage", () => {
    expect(() => parseServeArgs(["--http", "eighty"])).toThrow(/invalid port.*usage/);
    expect(() => parseServeArgs(["--http", "70000"])).toThrow(/invalid port/);
    expect(() => parseServeArgs(["--stdio", "--http", "1"])).toThrow(/choose one/);
    expect(() => parseServeArgs(["--host", "x"])).toThrow(/--host needs --http/);
    expect(() => parseServeArgs(["--verbose"])).toThrow(ServeArgsError);
  });
});

describe("process lifecycle", () => {
  it("stdio: exits 0 when the client closes stdin", async () => {
    const child = spawn(process.execPath, [TESTBED_SERVER_PATH, "--stdio"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } } })}\n`,
    );
    const [reply] = await once(child.stdout, "data");
    expect(JSON.parse(String(reply))).toMatchObject({ id: 1, result: { serverInfo: { name: "testbed" } } });
    child.stdin.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("http: on SIGTERM stops accepting, finishes the running call, then exits 0", async () => {
    const events = join(mkdtempSync(join(tmpdir(), "rlf-toolkit-sigterm-")), "events.jsonl");
    const testbed = await startTestbedHttp({ env: { TESTBED_EVENTS: events } });
    const health = await fetch(new URL("/healthz", testbed.url));
    expect(await health.json()).toEqual({ status: "ok" });

    const client = await connectHttp(testbed.url, "2025-11-25");
    const call = client.callTool({ name: "sleep", arguments: { ms: 1_000, tag: "drain" } });
    await waitForTestbedEvent(events, (e) => e.event === "executed" && e.args.tag === "drain");
    testbed.child.kill("SIGTERM");

    await expect(call).resolves.toMatchObject({ structuredContent: { slept: 1_000 } });
    expect(await testbed.exited).toBe(0);
    expect(readTestbedEvents(events).filter((e) => e.event === "cancelled")).toEqual([]);
    await client.close().catch(() => {});
  });
});
