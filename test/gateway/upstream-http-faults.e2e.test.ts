// Faults of a Streamable HTTP tool server, end to end: a real gateway, the testbed MCP server over HTTP in
// a child process. One POST whose socket was cut fails alone (each POST is its own request); a server
// that went away is still detected, and reconnected once it is back.
import { join } from "node:path";
import {
  type InProcessGateway,
  startTestGateway,
  tempDir,
  waitFor,
} from "@rlfactory/test-support/gateway-harness";
import {
  type SocketDroppingProxy,
  startSocketDroppingProxy,
} from "@rlfactory/test-support/socket-dropping-proxy";
import {
  readTestbedEvents,
  startTestbedHttp,
  type TestbedProcess,
} from "@rlfactory/test-support/testbed-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const policy = { reconnect: { initial_delay_ms: 100, max_delay_ms: 500 } };
// A reconnect lists the tools again; a liveness check is a `ping` (`server/discover` on 2026-07-28).
const LISTINGS = new Set(["initialize", "tools/list"]);
const CHECKS = new Set(["ping", "server/discover"]);

describe("an HTTP tool server whose socket is cut under one call", () => {
  const eventsFile = join(tempDir(), "events.jsonl");
  let testbed: TestbedProcess;
  let proxy: SocketDroppingProxy;
  let gw: InProcessGateway;
  const states: string[] = [];

  beforeAll(async () => {
    testbed = await startTestbedHttp({ env: { TESTBED_EVENTS: eventsFile } });
    // `not_idempotent` is never retried: its one POST is the one cut.
    proxy = await startSocketDroppingProxy(
      testbed.url,
      (m) => m.method === "tools/call" && m.params?.name === "not_idempotent",
    );
    gw = await startTestGateway({ servers: { testbed: { url: proxy.url, policy } } });
    gw.gateway.upstreams[0]!.on("state", (s) => states.push(s));
  });
  afterAll(async () => {
    await gw?.stop();
    await proxy?.close();
    await testbed?.stop();
  });

  it("fails that call UNAVAILABLE; the 8 calls in flight beside it succeed; the connection stays ready", async () => {
    const count = (methods: Set<string>) => proxy.forwarded.filter((m) => methods.has(m)).length;
    const listings = count(LISTINGS);
    const checks = count(CHECKS);
    // 8 calls waiting on the server for a 9th party, sent only after the cut: they can only succeed
    // if they were still in flight, on the same connection, when the cut call failed.
    const group = `cut-${Date.now()}`;
    const rendezvous = () =>
      gw.client.callTool({
        name: "testbed__rendezvous",
        arguments_json: JSON.stringify({ group, parties: 9, timeout_ms: 120_000 }),
        deadline_ms: 120_000,
      });
    const inFlight = Array.from({ length: 8 }, rendezvous);
    await waitFor(
      () =>
        readTestbedEvents(eventsFile).filter((e) => e.event === "executed" && e.args.group === group)
          .length === 8,
      20_000,
      "8 calls running on the server",
    );

    const cut = await gw.client.callTool({ name: "testbed__not_idempotent", arguments_json: "{}" });
    expect([cut.error_code, cut.attempts]).toEqual(["UNAVAILABLE", 1]);
    expect(proxy.dropped).toHaveLength(1);
    // The gateway asked the server once whether it is still there, and kept the connection.
    expect(count(CHECKS)).toBe(checks + 1);
    expect(gw.gateway.upstreams[0]!.state).toBe("ready");

    const ninth = await rendezvous();
    const results = [...(await Promise.all(inFlight)), ninth];
    expect(results.map((r) => [r.error_code, JSON.parse(r.structured_content_json)])).toEqual(
      results.map(() => ["OK", { met: 9 }]),
    );
    expect(states).toEqual([]);
    expect(count(LISTINGS)).toBe(listings);
  });
});

describe("an HTTP tool server killed under load", () => {
  const eventsFile = join(tempDir(), "events.jsonl");
  let testbed: TestbedProcess;
  let gw: InProcessGateway;
  const states: string[] = [];

  beforeAll(async () => {
    testbed = await startTestbedHttp({ env: { TESTBED_EVENTS: eventsFile } });
    gw = await startTestGateway({ servers: { testbed: { url: testbed.url, policy } } });
    gw.gateway.upstreams[0]!.on("state", (s) => states.push(s));
  });
  afterAll(async () => {
    await gw?.stop();
    await testbed?.stop();
  });

  it("fails the calls in flight UNAVAILABLE, goes down, and is ready again once the server is back", async () => {
    const pidCall = () => gw.client.callTool({ name: "testbed__pid", arguments_json: "{}" });
    const pid = (r: { structured_content_json: string }) =>
      (JSON.parse(r.structured_content_json) as { pid: number }).pid;
    const oldPid = pid(await pidCall());
    const inFlight = Array.from({ length: 6 }, (_, i) =>
      gw.client.callTool({
        name: "testbed__sleep",
        arguments_json: JSON.stringify({ ms: 120_000, tag: `load-${i}` }),
        deadline_ms: 120_000,
      }),
    );
    await waitFor(
      () =>
        readTestbedEvents(eventsFile).filter((e) => e.args.tag?.toString().startsWith("load-")).length === 6,
      20_000,
      "6 calls running on the server",
    );
    await testbed.stop("SIGKILL");
    const results = await Promise.all(inFlight);
    expect(new Set(results.map((r) => r.error_code))).toEqual(new Set(["UNAVAILABLE"]));
    // Each failed call waited for the ping's verdict: the connection was already given up.
    expect(states[0]).toBe("down");

    testbed = await startTestbedHttp({ env: { TESTBED_EVENTS: eventsFile }, port: testbed.port });
    await waitFor(() => gw.gateway.upstreams[0]!.state === "ready", 20_000, "reconnected");
    expect(states.at(-1)).toBe("ready");
    // The failures opened the breaker: its half-open trial lets a call through again.
    let after: Awaited<ReturnType<typeof pidCall>> | undefined;
    await waitFor(
      async () => {
        after = await pidCall();
        return after.error_code === "OK";
      },
      20_000,
      "a successful call after the restart",
    );
    expect(pid(after!)).not.toBe(oldPid);
  });
});
