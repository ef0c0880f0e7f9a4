// The policy stack end to end: a real gateway, a real testbed MCP server over stdio.
import { join } from "node:path";
import {
  type InProcessGateway,
  readyz,
  startTestGateway,
  tempDir,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { maxConcurrentExecutions, readTestbedEvents } from "@rlfactory/test-support/testbed-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The one wall-clock assert left, and why this file runs in the exclusive group (vitest.config.ts),
// alone on the machine: the deadline's acceptance is "TIMEOUT within the deadline + 50 ms". It is
// checked on the gateway's own clock (`latency_ms`, the clock the deadline runs on); the caller's
// clock adds two loopback gRPC hops, which a loaded 2-core machine can stretch, hence its own slack.
const DEADLINE_MS = 300;
const DEADLINE_MARGIN_MS = 50;
const TRANSPORT_SLACK_MS = 250;

describe("gateway policies over a real stdio MCP server", () => {
  const eventsFile = join(tempDir(), "events.jsonl");
  let gw: InProcessGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      servers: {
        testbed: testbedStdio(eventsFile, {
          policy: {
            breaker: { consecutive_failures: 3, half_open_after_ms: 1_000 },
            reconnect: { initial_delay_ms: 100, max_delay_ms: 500 },
          },
        }),
      },
    });
  });
  afterAll(() => gw?.stop());

  it("CallTools runs a batch concurrently: the tool server executes all 8 calls at once; results in order", async () => {
    // Each call returns only once all 8 are running on the server at the same time: a gateway that
    // ran them one by one would get 8 rendezvous failures instead.
    const group = `batch-${Date.now()}`;
    const calls = Array.from({ length: 8 }, (_, i) => ({
      name: "testbed__rendezvous",
      arguments_json: JSON.stringify({ group, parties: 8, timeout_ms: 20_000 }),
      call_id: `c${i}`,
    }));
    const results = await gw.client.callTools({ calls });
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(results.map((r) => [r.error_code, r.is_error, JSON.parse(r.structured_content_json)])).toEqual(
      calls.map(() => ["OK", false, { met: 8 }]),
    );
    const batch = readTestbedEvents(eventsFile).filter((e) => e.args.group === group);
    expect(maxConcurrentExecutions(batch, () => true)).toBe(8);
    expect(batch.filter((e) => e.event === "finished")).toHaveLength(8);
  });

  it("returns each call's own status inside one batch", async () => {
    const results = await gw.client.callTools({
      calls: [
        { name: "testbed__sleep", arguments_json: '{"ms": 1}' },
        { name: "testbed__missing", arguments_json: "{}" },
        { name: "testbed__fail", arguments_json: '{"message": "no such row"}' },
        { name: "testbed__sleep", arguments_json: "not json" },
      ],
    });
    expect(results.map((r) => [r.error_code, r.is_error])).toEqual([
      ["OK", false],
      ["UNKNOWN_TOOL", false],
      ["OK", true],
      ["INVALID_ARGUMENTS", false],
    ]);
  });

  it("a call past its deadline returns TIMEOUT within deadline + 50 ms and the tool sees the cancellation", async () => {
    const tag = `deadline-${Date.now()}`;
    const started = performance.now();
    const r = await gw.client.callTool({
      name: "testbed__sleep",
      arguments_json: JSON.stringify({ ms: 5_000, tag }),
      deadline_ms: DEADLINE_MS,
    });
    const elapsed = performance.now() - started;
    expect(r.error_code).toBe("TIMEOUT");
    expect(r.error_message).toContain(`${DEADLINE_MS} ms deadline`);
    expect(r.latency_ms).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
    expect(r.latency_ms).toBeLessThan(DEADLINE_MS + DEADLINE_MARGIN_MS);
    expect(elapsed).toBeLessThan(DEADLINE_MS + DEADLINE_MARGIN_MS + TRANSPORT_SLACK_MS);
    await waitFor(
      () => readTestbedEvents(eventsFile).some((e) => e.event === "cancelled" && e.args.tag === tag),
      5_000,
      "the tool server to record the cancellation",
    );
  });

  it("a tool result with isError reaches the caller as a tool error and the breaker stays closed", async () => {
    for (let i = 0; i < 6; i++) {
      const r = await gw.client.callTool({
        name: "testbed__fail",
        arguments_json: '{"message":"city not found"}',
      });
      expect(r.error_code).toBe("OK");
      expect(r.is_error).toBe(true);
      expect(r.content[0]?.text?.text).toContain("city not found");
    }
    const state = await readyz(gw.gateway.adminUrl!);
    expect(state.upstreams[0]?.breaker).toBe("closed");
  });

  it("100 calls with deadline_ms 1 to a healthy server never open its breaker: the next ordinary call succeeds", async () => {
    // Each call asks for less time than the tool takes: the caller's deadline, not a server fault.
    const codes = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const r = await gw.client.callTool({
        name: "testbed__sleep",
        arguments_json: '{"ms":50}',
        deadline_ms: 1,
      });
      codes.set(r.error_code, (codes.get(r.error_code) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ TIMEOUT: 100 });
    const ordinary = await gw.client.callTool({ name: "testbed__sleep", arguments_json: '{"ms":50}' });
    expect(ordinary.error_code).toBe("OK");
    expect((await readyz(gw.gateway.adminUrl!)).upstreams[0]?.breaker).toBe("closed");
  });

  it("gives typed errors for an unknown tool, schema-invalid, non-JSON and 10 MB arguments", async () => {
    const unknown = await gw.client.callTool({ name: "testbed__nope", arguments_json: "{}" });
    expect([unknown.error_code, unknown.error_message]).toEqual([
      "UNKNOWN_TOOL",
      'unknown tool "testbed__nope"; ListTools shows the catalog',
    ]);
    const invalid = await gw.client.callTool({ name: "testbed__sleep", arguments_json: '{"ms":"soon"}' });
    expect(invalid.error_code).toBe("INVALID_ARGUMENTS");
    expect(invalid.error_message).toBe("testbed__sleep: arguments/ms must be integer");
    const notJson = await gw.client.callTool({ name: "testbed__sleep", arguments_json: "{ms: 5" });
    expect(notJson.error_code).toBe("INVALID_ARGUMENTS");
    expect(notJson.error_message).toMatch(/^testbed__sleep: arguments are not valid JSON \(/);
    const huge = await gw.client.callTool({
      name: "testbed__echo",
      arguments_json: JSON.stringify({ value: "x".repeat(10 * 1024 * 1024) }),
    });
    expect(huge.error_code).toBe("ARGUMENTS_TOO_LARGE");
    expect(huge.error_message).toMatch(
      /^testbed__echo: arguments are 104857\d\d bytes; the limit is 1048576$/,
    );
    for (const r of [unknown, invalid, notJson, huge]) {
      expect(r.error_message).not.toMatch(/\n|\bat .*\.ts:\d+/);
      expect(r.attempts).toBe(0);
    }
  });

  it("survives its tool server being killed under load: UNAVAILABLE, breaker opens, restart, breaker closes", async () => {
    const pidResult = await gw.client.callTool({ name: "testbed__pid", arguments_json: "{}" });
    const oldPid = (JSON.parse(pidResult.structured_content_json) as { pid: number }).pid;

    // Load: 12 calls in flight when the server dies, sleeping and with a deadline far past the test's
    // own timeout: had the gateway waited for them, the test would time out; had it waited for the
    // deadline, they would come back TIMEOUT. They come back UNAVAILABLE: the death was reported.
    const inFlight = Array.from({ length: 12 }, (_, i) =>
      gw.client.callTool({
        name: "testbed__sleep",
        arguments_json: JSON.stringify({ ms: 120_000, tag: `load-${i}` }),
        deadline_ms: 120_000,
      }),
    );
    await waitFor(
      () =>
        readTestbedEvents(eventsFile).filter((e) => e.args.tag?.toString().startsWith("load-")).length >= 12,
      5_000,
      "load",
    );
    process.kill(oldPid, "SIGKILL");
    const results = await Promise.all(inFlight);
    expect(new Set(results.map((r) => r.error_code))).toEqual(new Set(["UNAVAILABLE"]));

    // Repeated transport failures opened the breaker; calls are now rejected without reaching the upstream.
    expect((await readyz(gw.gateway.adminUrl!)).upstreams[0]?.breaker).toBe("open");
    const rejected = await gw.client.callTool({ name: "testbed__sleep", arguments_json: '{"ms":1}' });
    expect(["CIRCUIT_OPEN", "UNAVAILABLE"]).toContain(rejected.error_code);

    // The server is respawned; after halfOpenAfter a trial call succeeds and closes the breaker.
    await waitFor(
      async () => (await readyz(gw.gateway.adminUrl!)).upstreams[0]?.state === "ready",
      10_000,
      "restart",
    );
    await waitFor(
      async () =>
        (await gw.client.callTool({ name: "testbed__sleep", arguments_json: '{"ms":1}' })).error_code ===
        "OK",
      10_000,
      "a successful call after the restart",
    );
    expect((await readyz(gw.gateway.adminUrl!)).upstreams[0]?.breaker).toBe("closed");
    const newPid = (
      JSON.parse(
        (await gw.client.callTool({ name: "testbed__pid", arguments_json: "{}" })).structured_content_json,
      ) as {
        pid: number;
      }
    ).pid;
    expect(newPid).not.toBe(oldPid);
  });

  it("cuts oversized text output with a visible marker", async () => {
    const r = await gw.client.callTool({
      name: "testbed__big",
      arguments_json: JSON.stringify({ bytes: 3 * 1024 * 1024 }),
    });
    expect(r.error_code).toBe("OK");
    expect(r.truncated).toBe(true);
    const text = r.content[0]?.text?.text ?? "";
    expect(text).toContain("[output truncated by the rlfactory gateway: 1048576 of 3145728 bytes shown]");
  });
});
