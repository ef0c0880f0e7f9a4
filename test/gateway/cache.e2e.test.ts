// Result cache and single-flight across real processes: in memory, and through a real redis-server
// shared by two gateway processes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ChildGateway,
  type InProcessGateway,
  spawnGateway,
  startRedis,
  startTestGateway,
  tempDir,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const executions = (file: string, marker: string): number => {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; tool: string; args: { value?: unknown } })
      .filter(
        (e) =>
          e.event === "executed" &&
          e.tool === "echo" &&
          JSON.stringify(e.args.value) === JSON.stringify(marker),
      ).length;
  } catch {
    return 0;
  }
};

const echoCached = { tools: { echo: { cache: true, cache_ttl_ms: 60_000 } } };

describe("cache + single-flight (memory)", () => {
  const eventsFile = join(tempDir(), "events.jsonl");
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ servers: { testbed: testbedStdio(eventsFile, echoCached) } });
  });
  afterAll(() => gw?.stop());

  it("64 concurrent identical calls cause exactly one upstream execution; the next call is a cache hit", async () => {
    const marker = `coalesce-${Date.now()}`;
    const call = { name: "testbed__echo", arguments_json: JSON.stringify({ value: marker, delay_ms: 150 }) };
    const results = await Promise.all(Array.from({ length: 64 }, () => gw.client.callTool(call)));
    expect(results.every((r) => r.error_code === "OK")).toBe(true);
    expect(new Set(results.map((r) => r.structured_content_json))).toEqual(
      new Set([JSON.stringify({ value: marker })]),
    );
    expect(executions(eventsFile, marker)).toBe(1);
    expect(results.filter((r) => r.attempts === 1)).toHaveLength(1);

    // Same arguments in another key order: same canonical key, served from the cache.
    const next = await gw.client.callTool({
      ...call,
      arguments_json: JSON.stringify({ delay_ms: 150, value: marker }),
    });
    expect(next.cache_hit).toBe(true);
    expect(next.attempts).toBe(0);
    expect(executions(eventsFile, marker)).toBe(1);

    // Bypass executes again.
    const bypass = await gw.client.callTool({ ...call, cache: "CACHE_BYPASS" });
    expect(bypass.cache_hit).toBe(false);
    expect(executions(eventsFile, marker)).toBe(2);
  });

  it("a tool not opted into caching executes every time", async () => {
    const first = await gw.client.callTool({ name: "testbed__not_idempotent", arguments_json: "{}" });
    const second = await gw.client.callTool({ name: "testbed__not_idempotent", arguments_json: "{}" });
    expect(second.cache_hit).toBe(false);
    expect(second.structured_content_json).not.toBe(first.structured_content_json);
  });
});

describe("cache shared through Redis by two gateway processes", () => {
  const eventsFile = join(tempDir(), "events.jsonl");
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let a: ChildGateway;
  let b: ChildGateway;

  beforeAll(async () => {
    redis = await startRedis();
    const config = {
      cache: { backend: "redis", redis_url: redis.url, key_prefix: `test:${Date.now()}:` },
      servers: { testbed: testbedStdio(eventsFile, echoCached) },
    };
    [a, b] = await Promise.all([spawnGateway(config), spawnGateway(config)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  it("a result computed through one gateway is a hit on the other", async () => {
    const marker = `redis-${Date.now()}`;
    const call = { name: "testbed__echo", arguments_json: JSON.stringify({ value: marker }) };
    const first = await Promise.all(Array.from({ length: 16 }, () => a.client.callTool(call)));
    expect(first.every((r) => r.error_code === "OK")).toBe(true);
    expect(executions(eventsFile, marker)).toBe(1);

    const fromB = await b.client.callTool(call);
    expect(fromB.error_code).toBe("OK");
    expect(fromB.cache_hit).toBe(true);
    expect(fromB.structured_content_json).toBe(JSON.stringify({ value: marker }));
    expect(executions(eventsFile, marker)).toBe(1);

    const metrics = await (await fetch(`${b.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/rlf_gateway_cache_requests_total\{server="testbed",result="hit"\} 1/);
  });
});
