// The gateway's call log (docs/gateway.md, "Call log"): `GET /v1/calls?trajectory=T` on the admin port
// of a real gateway, with auth on, whose upstream is the testbed MCP server in a child process. Calls
// come in through `/mcp` bound to a trajectory (the MCP TypeScript SDK client, as an agent makes them)
// and through gRPC with a `trajectory_id`; the log says how each ended, in order, within its bounds.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fetchGatewayCalls, gatewayCallLogSchema } from "@rlfactory/clients/gateway-call-log";
import { argumentsSha256 } from "@rlfactory/kit";
import {
  type InProcessGateway,
  startTestGateway,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { newClient } from "@rlfactory/test-support/mcp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KEY = "call-log-test-key";
const auth = { authorization: `Bearer ${KEY}` };

let gw: InProcessGateway;

beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: { api_keys: [KEY] },
      call_log: { max_calls_per_trajectory: 3, max_trajectories: 2 },
      servers: {
        testbed: testbedStdio(undefined, { tools: { sleep: { deadline_ms: 200, max_deadline_ms: 200 } } }),
      },
    },
    { apiKey: KEY },
  );
}, 60_000);
afterAll(() => gw?.stop());

const calls = (trajectory: string) => fetchGatewayCalls(gw.gateway.adminUrl!, trajectory, { apiKey: KEY });

/** An MCP client on `/mcp` bound to `trajectory`, as `rlf rollout agent` hands it to an agent. */
async function agentClient(trajectory: string) {
  const client = newClient("2025-11-25");
  const url = new URL(`${gw.gateway.adminUrl}/mcp`);
  url.searchParams.set("rlf_trajectory", trajectory);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }));
  return client;
}

const grpcCall = (name: string, args: Record<string, unknown>, trajectory: string) =>
  gw.client.callTool({
    name,
    arguments_json: JSON.stringify(args),
    deadline_ms: 0,
    trajectory_id: trajectory,
    call_id: "",
    cache: "CACHE_DEFAULT",
  });

describe("GET /v1/calls", () => {
  it("lists a trajectory's /mcp calls in order: a TIMEOUT, a tool's isError, a success", async () => {
    const client = await agentClient("traj-mcp");
    try {
      const timedOut = await client.callTool({ name: "testbed__sleep", arguments: { ms: 600_000 } });
      const failed = await client.callTool({ name: "testbed__fail", arguments: { message: "no" } });
      const ok = await client.callTool({ name: "testbed__echo", arguments: { value: { b: 1, a: 2 } } });
      // what the agent saw: two errors it cannot tell apart from the result alone
      expect([timedOut.isError, failed.isError, ok.isError ?? false]).toEqual([true, true, false]);
    } finally {
      await client.close();
    }
    const log = await calls("traj-mcp");
    expect(log.calls.map((c) => [c.seq, c.name, c.server, c.error_code, c.is_error])).toEqual([
      [0, "testbed__sleep", "testbed", "TIMEOUT", false],
      [1, "testbed__fail", "testbed", "OK", true],
      [2, "testbed__echo", "testbed", "OK", false],
    ]);
    expect(log.calls[2]!.arguments_sha256).toBe(argumentsSha256({ value: { a: 2, b: 1 } }));
    expect(log.dropped).toBe(0);
  });

  it("logs gRPC calls under their trajectory_id; calls without one are not logged", async () => {
    await grpcCall("testbed__echo", { value: 1 }, "traj-grpc");
    await grpcCall("testbed__echo", { value: 2 }, "");
    const log = await calls("traj-grpc");
    expect(log.calls.map((c) => [c.name, c.error_code, c.arguments_sha256])).toEqual([
      ["testbed__echo", "OK", argumentsSha256({ value: 1 })],
    ]);
  });

  it("keeps the first max_calls_per_trajectory calls, counts the rest, and evicts the oldest trajectory past max_trajectories", async () => {
    for (let i = 0; i < 5; i++) await grpcCall("testbed__echo", { value: i }, "traj-capped");
    const capped = await calls("traj-capped");
    expect(capped.calls.map((c) => c.seq)).toEqual([0, 1, 2]);
    expect(capped.dropped).toBe(2);
    // max_trajectories 2: traj-grpc and traj-capped were called last, so traj-mcp is gone
    expect((await calls("traj-mcp")).calls).toEqual([]);
    expect((await calls("traj-grpc")).calls).toHaveLength(1);
  });

  it("answers 401 without the API key, and 400 without a trajectory", async () => {
    const url = `${gw.gateway.adminUrl}/v1/calls?trajectory=traj-grpc`;
    for (const headers of [{}, { authorization: "Bearer not-the-key" }] as Record<string, string>[]) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHENTICATED");
    }
    const bad = await fetch(`${gw.gateway.adminUrl}/v1/calls`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("INVALID_ARGUMENTS");
    const good = await fetch(url, { headers: auth });
    expect(gatewayCallLogSchema.parse(await good.json()).calls).toHaveLength(1);
  });
});
