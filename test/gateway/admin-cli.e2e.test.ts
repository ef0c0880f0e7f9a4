// Admin HTTP surface, API-key auth, list_changed, and the `rlf tools` CLI against a real gateway.

import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { GatewayClient } from "@rlfactory/clients";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { documentedMetricNames, scrapedMetricNames } from "@rlfactory/test-support/metric-names";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const KEY = "test-api-key-0123456789";

describe("admin HTTP, auth, list_changed and the CLI", () => {
  let gw: InProcessGateway;
  let admin: string;
  const auth = { authorization: `Bearer ${KEY}` };

  beforeAll(async () => {
    gw = await startTestGateway(
      { auth: { api_keys: [KEY] }, servers: { testbed: testbedStdio(undefined, { exclude: ["image"] }) } },
      { apiKey: KEY },
    );
    admin = gw.gateway.adminUrl!;
  });
  afterAll(() => gw?.stop());

  it("rejects gRPC calls without a valid API key", async () => {
    const anonymous = new GatewayClient(gw.gateway.grpcAddress);
    const wrong = new GatewayClient(gw.gateway.grpcAddress, { apiKey: "wrong-key-000000" });
    try {
      await expect(anonymous.listTools()).rejects.toMatchObject({
        code: 16,
        details: expect.stringMatching(/API key/),
      });
      await expect(wrong.callTool({ name: "testbed__pid" })).rejects.toMatchObject({ code: 16 });
    } finally {
      anonymous.close();
      wrong.close();
    }
    expect((await gw.client.listTools()).length).toBeGreaterThan(0);
  });

  it("applies the per-server tool filter", async () => {
    const names = (await gw.client.listTools()).map((t) => t.name);
    expect(names).toContain("testbed__echo");
    expect(names).not.toContain("testbed__image");
  });

  it("serves /healthz, /readyz and /metrics without a key", async () => {
    expect(await (await fetch(`${admin}/healthz`)).json()).toEqual({ status: "ok" });
    // auth is on: without a key, only each upstream's state; with one, the details too
    const ready = await fetch(`${admin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", upstreams: [{ name: "testbed", state: "ready" }] });
    expect(await (await fetch(`${admin}/readyz`, { headers: auth })).json()).toMatchObject({
      status: "ready",
      upstreams: [{ name: "testbed", state: "ready", breaker: "closed", tools: expect.any(Number) }],
    });
    await gw.client.callTool({ name: "testbed__fail", arguments_json: '{"message":"x"}' });
    await gw.client.callTool({ name: "testbed__nope" });
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    for (const name of [
      "rlf_gateway_calls_total",
      "rlf_gateway_call_errors_total",
      "rlf_gateway_call_duration_seconds_bucket",
      "rlf_gateway_upstream_in_flight",
      "rlf_gateway_upstream_queue_depth",
      "rlf_gateway_breaker_state",
      "rlf_gateway_cache_requests_total",
    ]) {
      expect(metrics).toContain(name);
    }
    expect(metrics).toMatch(
      /rlf_gateway_calls_total\{server="testbed",tool="testbed__fail",outcome="tool_error"\} 1/,
    );
    expect(metrics).toMatch(/rlf_gateway_call_errors_total\{server="none",code="UNKNOWN_TOOL"\} 1/);
    expect(metrics).toMatch(/rlf_gateway_breaker_state\{server="testbed",state="closed"\} 1/);
  });

  it("names every metric rlf_gateway_… once (process metrics too), as docs/gateway.md does", async () => {
    const scraped = scrapedMetricNames(await (await fetch(`${admin}/metrics`)).text());
    expect(scraped).toContain("rlf_gateway_process_cpu_user_seconds_total");
    expect(scraped).toContain("rlf_gateway_nodejs_eventloop_lag_seconds");
    for (const name of scraped) {
      expect(name).toMatch(/^rlf_gateway_/);
      expect(name.lastIndexOf("rlf_gateway_")).toBe(0);
      expect(name).not.toContain("process_process");
    }
    const documented = documentedMetricNames(join(ROOT, "docs/gateway.md"), "rlf_gateway_");
    expect(documented).toContain("rlf_gateway_calls_total");
    expect(documented).toContain("rlf_gateway_process_cpu_user_seconds_total");
    for (const name of documented) expect(scraped).toContain(name);
  });

  it("lists and calls tools over HTTP with the same typed results", async () => {
    expect((await fetch(`${admin}/v1/tools`)).status).toBe(401);
    const list = (await (await fetch(`${admin}/v1/tools`, { headers: auth })).json()) as {
      tools: { name: string }[];
    };
    expect(list.tools.map((t) => t.name)).toContain("testbed__sleep");

    const post = (name: string, body: unknown) =>
      fetch(`${admin}/v1/tools/${name}:call`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ok = await post("testbed__echo", { arguments: { value: [1, 2] } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      error_code: "OK",
      is_error: false,
      structured_content: { value: [1, 2] },
    });

    const toolError = await post("testbed__fail", { arguments: { message: "bad input" } });
    expect(toolError.status).toBe(200);
    expect(await toolError.json()).toMatchObject({
      is_error: true,
      content: [{ type: "text", text: "bad input" }],
    });

    const unknown = await post("nope__nope", {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error_code: "UNKNOWN_TOOL" });

    const timeout = await post("testbed__sleep", { arguments: { ms: 2_000 }, deadline_ms: 100 });
    expect(timeout.status).toBe(504);
    expect(await timeout.json()).toMatchObject({ error_code: "TIMEOUT" });

    const badBody = await post("testbed__echo", { argument: {} });
    expect(badBody.status).toBe(400);
  });

  it("refreshes the catalog when a server sends tools/list_changed", async () => {
    const r = await gw.client.callTool({
      name: "testbed__add_tool",
      arguments_json: '{"name":"fresh_tool"}',
    });
    expect(r.error_code).toBe("OK");
    await waitFor(
      async () => (await gw.client.listTools()).some((t) => t.name === "testbed__fresh_tool"),
      5_000,
      "list_changed",
    );
    const fresh = await gw.client.callTool({ name: "testbed__fresh_tool" });
    expect(fresh.error_code).toBe("OK");
  });

  describe("rlf tools", () => {
    const rlf = (...args: string[]) =>
      run(process.execPath, [RLF, "tools", ...args, "--gateway", gw.gateway.grpcAddress], {
        cwd: ROOT,
        env: { ...process.env, RLF_API_KEY: KEY },
      });

    it("lists tools as JSON", async () => {
      const { stdout } = await rlf("list", "--json");
      const tools = JSON.parse(stdout) as { name: string; input_schema: { type: string } }[];
      expect(tools.find((t) => t.name === "testbed__sleep")?.input_schema.type).toBe("object");
    });

    it("lists tools as a table", async () => {
      const { stdout } = await rlf("list");
      expect(stdout).toMatch(/^testbed__echo\s+/m);
    });

    it("calls a tool", async () => {
      const { stdout } = await rlf("call", "testbed__echo", "--args", '{"value":"cli"}', "--json");
      expect(JSON.parse(stdout)).toMatchObject({ error_code: "OK", structured_content: { value: "cli" } });
    });

    it("exits 1 with the typed error for a failed call", async () => {
      const err = await rlf("call", "testbed__sleep", "--args", "{bad").catch(
        (e: { code: number; stdout: string }) => e,
      );
      expect(err).toMatchObject({ code: 1 });
      expect((err as { stdout: string }).stdout).toMatch(
        /^error INVALID_ARGUMENTS: testbed__sleep: arguments are not valid JSON/,
      );
    });

    it("exits 1 naming the gateway when the API key is wrong", async () => {
      const err = await run(process.execPath, [RLF, "tools", "list", "--gateway", gw.gateway.grpcAddress], {
        cwd: ROOT,
        env: { ...process.env, RLF_API_KEY: "wrong-key-000000" },
      }).catch((e: { code: number; stderr: string }) => e);
      expect(err).toMatchObject({ code: 1 });
      expect((err as { stderr: string }).stderr).toContain("missing or invalid API key");
    });

    it("exits 2 with usage on a command-line mistake", async () => {
      const err = await run(process.execPath, [RLF, "tools", "call"], { cwd: ROOT }).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect(err).toMatchObject({ code: 2 });
      expect((err as { stderr: string }).stderr).toMatch(/needs a tool NAME[\s\S]*Usage:/);
    });
  });
});
