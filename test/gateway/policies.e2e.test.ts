// The policy stack end to end: a real gateway, a real testbed MCP server over stdio.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type InProcessGateway,
  readyz,
  startTestGateway,
  tempDir,
  testbedStdio,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Event {
  event: string;
  tool: string;
  args: Record<string, unknown>;
  pid: number;
}
const events = (file: string): Event[] => {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event);
  } catch {
    return [];
  }
};

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

  it("CallTools runs a batch concurrently: 8 calls of a 200 ms tool return in under 300 ms, in order", async () => {
    const calls = Array.from({ length: 8 }, (_, i) => ({
      name: "testbed__sleep",
      arguments_json: JSON.stringify({ ms: 200, tag: `batch-${i}` }),
      call_id: `c${i}`,
    }));
    const started = performance.now();
    const results = await gw.client.callTools({ calls });
    const elapsed = performance.now() - started;
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(results.every((r) => r.error_code === "OK" && !r.is_error)).toBe(true);
    expect(elapsed).toBeLessThan(300);
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
      deadline_ms: 300,
    });
    const elapsed = performance.now() - started;
    expect(r.error_code).toBe("TIMEOUT");
    expect(r.error_message).toContain("300 ms deadline");
    expect(elapsed).toBeLessThan(350);
    await waitFor(
      () => events(eventsFile).some((e) => e.event === "cancelled" && e.args.tag === tag),
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

    // Load: 12 slow calls in flight when the server dies.
    const inFlight = Array.from({ length: 12 }, (_, i) =>
      gw.client.callTool({
        name: "testbed__sleep",
        arguments_json: JSON.stringify({ ms: 3_000, tag: `load-${i}` }),
        deadline_ms: 10_000,
      }),
    );
    await waitFor(
      () => events(eventsFile).filter((e) => e.args.tag?.toString().startsWith("load-")).length >= 12,
      5_000,
      "load",
    );
    process.kill(oldPid, "SIGKILL");
    const killedAt = performance.now();
    const results = await Promise.all(inFlight);
    // Nobody hangs until the 3 s sleep or the 10 s deadline: the death is reported at once.
    expect(performance.now() - killedAt).toBeLessThan(2_000);
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
