// Issue 27: an agent's tool call that failed in the gateway is recorded as failed. A real gateway
// (in-process, the testbed MCP server as its stdio child, `testbed__sleep` held to 300 ms), the
// simulated inference server (`converse`: one call of the tool the prompt names, then a reply), and an
// agent written the plain way (test/support/src/mcp-chat-agent.ts: an OpenAI chat loop with MCP tools,
// which shows the model a failed call's text like any other). The built-in loop runs the same tasks
// against the same gateway: the agent's record must say what the built-in one says about each call,
// and the rewards that read calls must score it alike.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gatewayCallLogSchema } from "@rlfactory/clients/gateway-call-log";
import type { Trajectory } from "@rlfactory/contracts";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
  testbedStdio,
} from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const AGENT = join(ROOT, "test/support/src/mcp-chat-agent.ts");

const task = (id: string, call: string) => ({
  id,
  data_source: "gateway-calls",
  prompt: [{ role: "user", content: `call ${call}` }],
  ground_truth: "",
  extra_info: {},
});
const TASKS = [
  // sleeps far past its 300 ms in the gateway: TIMEOUT
  task("timeout", 'testbed__sleep: {"ms": 600000}'),
  // the server answers isError
  task("tool-error", 'testbed__fail: {"message": "no such city"}'),
  task("ok", 'testbed__echo: {"value": "hello"}'),
];
const REWARD = "{ type: tool_precision }, { type: tool_call_penalty, max_calls: 0, penalty: 0.1 }";

let gateway: InProcessGateway;
let sim: SimulatedLlm;

beforeAll(async () => {
  [gateway, sim] = await Promise.all([
    startTestGateway({
      servers: {
        testbed: testbedStdio(undefined, {
          tools: { sleep: { deadline_ms: 300, max_deadline_ms: 300 } },
          // the test's timeouts are on purpose: the breaker stays closed through them
          policy: { breaker: { consecutive_failures: 1_000 } },
        }),
      },
    }),
    startSimulatedLlm({ policy: "converse", seed: 3 }),
  ]);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await gateway?.stop();
});

/** Runs `rlf rollout` (no agent) or `rlf rollout agent` on TASKS and reads back the records by task id. */
async function rollOut(agent?: string): Promise<Map<string, Trajectory>> {
  const dir = tempDir("rlf-agent-gateway-calls-");
  writeFileSync(join(dir, "tasks.jsonl"), `${TASKS.map((t) => JSON.stringify(t)).join("\n")}\n`);
  writeFileSync(
    join(dir, "rollout.yaml"),
    [
      `inference: { engine: vllm, urls: [${sim.url}] }`,
      `gateway: { address: "${gateway.gateway.grpcAddress}" }`,
      "format: hermes",
      "dataset: { path: tasks.jsonl }",
      "rollout: { group_size: 1, max_concurrency: 3, sampling: { max_tokens: 200 } }",
      `reward: { components: [${REWARD}] }`,
    ].join("\n"),
  );
  const out = join(dir, "out");
  await promisify(execFile)(
    process.execPath,
    [
      RLF,
      "rollout",
      ...(agent === undefined
        ? []
        : ["agent", "--agent", agent, "--gateway-mcp", `${gateway.gateway.adminUrl}/mcp`]),
      "--config",
      join(dir, "rollout.yaml"),
      "--out",
      out,
      "--no-progress",
    ],
    { cwd: ROOT, timeout: 240_000 },
  );
  const records = readFileSync(join(out, "trajectories.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Trajectory);
  return new Map(records.map((t) => [t.task_id, t]));
}

/** What a record says about its calls and how the call-reading rewards scored it. */
const verdict = (t: Trajectory) => ({
  calls: t.tool_calls.map((c) => [c.name, c.arguments, c.error_code, c.is_error]),
  reward: t.reward,
  reward_error: t.reward_error?.code ?? null,
  components: t.reward_components,
});

describe("rlf rollout agent: calls that failed in the gateway", () => {
  let builtIn: Map<string, Trajectory>;
  let agent: Map<string, Trajectory>;
  let ownCall: Map<string, Trajectory>;
  beforeAll(async () => {
    builtIn = await rollOut();
    agent = await rollOut(`${process.execPath} ${AGENT}`);
    // the same agent, which first calls a tool of its own accord (the model never asked for it)
    ownCall = await rollOut(`AGENT_OWN_CALL='testbed__sleep {"ms": 500000}' ${process.execPath} ${AGENT}`);
  }, 480_000);

  it("a call past its deadline in the gateway is TIMEOUT, is_error, scored as the built-in loop scores it", async () => {
    const mine = agent.get("timeout")!;
    expect(mine.status, mine.status_reason ?? "").toBe("completed");
    expect(verdict(mine).calls).toEqual([["testbed__sleep", { ms: 600000 }, "TIMEOUT", true]]);
    // tool_precision: an infrastructure failure leaves the rollout unscored, never a lower precision
    expect(verdict(mine)).toEqual(verdict(builtIn.get("timeout")!));
    expect(verdict(mine).reward_error).toBe("TIMEOUT");
    // the latency is the gateway's, as its call log (GET /v1/calls) has it, not the agent's round trip
    const trajectory = encodeURIComponent(String(mine.metadata?.trajectory_id));
    const res = await fetch(`${gateway.gateway.adminUrl}/v1/calls?trajectory=${trajectory}`);
    const log = gatewayCallLogSchema.parse(await res.json());
    expect(log.calls.map((c) => c.latency_ms)).toContain(mine.tool_calls[0]!.latency_ms);
    // the model was shown the gateway's error as text
    expect(mine.tool_calls[0]!.result).toContain("TIMEOUT");
    expect(mine.metadata?.capture).toMatchObject({
      gateway_calls: 1,
      gateway_calls_unmatched: 0,
      gateway_calls_failed: 1,
      tool_calls_unmatched: 0,
    });
  });

  it("an upstream isError result is a tool error, is_error, scored as the built-in loop scores it", () => {
    const mine = agent.get("tool-error")!;
    expect(verdict(mine).calls).toEqual([["testbed__fail", { message: "no such city" }, "TOOL_ERROR", true]]);
    expect(verdict(mine)).toEqual(verdict(builtIn.get("tool-error")!));
    expect(verdict(mine).components).toEqual({ tool_precision: 0, tool_call_penalty: -0.1 });
  });

  it("a call that succeeded stays a success, scored alike", () => {
    const mine = agent.get("ok")!;
    expect(verdict(mine).calls).toEqual([["testbed__echo", { value: "hello" }, null, false]]);
    expect(verdict(mine)).toEqual(verdict(builtIn.get("ok")!));
    expect(verdict(mine).components).toEqual({ tool_precision: 1, tool_call_penalty: -0.1 });
  });

  it("a call the agent made that the model never asked for is counted, not paired with the model's calls", () => {
    for (const [id, t] of ownCall) {
      const seen = JSON.stringify({ calls: t.tool_calls, capture: t.metadata?.capture });
      // the agent's own sleep failed too, before the model was asked; the model's call is its own. The
      // earlier runs' calls under the same trajectory id (ids repeat across runs) are left out.
      expect(t.metadata?.capture, seen).toMatchObject({
        gateway_calls: 2,
        gateway_calls_unmatched: 1,
        gateway_calls_failed: id === "ok" ? 1 : 2,
        tool_calls_unmatched: 0,
      });
      expect(verdict(t).calls, seen).toEqual(verdict(agent.get(id)!).calls);
    }
  });
});
