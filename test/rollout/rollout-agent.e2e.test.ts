// `rlf rollout agent` with agent programs nobody here wrote (docs/agents.md): examples/agents/ are
// ordinary OpenAI Agents SDK and smolagents programs, run unchanged from services/engines/.venv-agents
// (`npm run setup:engines`). The model is the simulated inference server (`converse` policy, real Qwen3
// tokenizer) behind a recording proxy; the tools are a real gateway's, with the key-value environment
// as its stdio child, reached by the agent through RLF_MCP_URL in its trajectory's episode.
// The trajectories are checked against what the inference server itself returned (the proxy's
// record), not against the capture code's bookkeeping: every sampled turn is one exchange's ids and
// logprobs, sent with exactly the ids before it as its prompt; observation turns are masked.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Trajectory } from "@rlfactory/contracts";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import {
  type InProcessGateway,
  RLF,
  ROOT,
  startTestGateway,
  tempDir,
} from "@rlfactory/test-support/gateway-harness";
import {
  type Exchange,
  type RecordingProxy,
  startRecordingProxy,
} from "@rlfactory/test-support/recording-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PYTHON = join(ROOT, "services/engines/.venv-agents/bin/python");
const OPENAI_AGENT = join(ROOT, "examples/agents/openai_agents_mcp.py");
const SMOL_AGENT = join(ROOT, "examples/agents/smolagents_tool_calling.py");
const KV = [join(ROOT, "test/support/src/kv-environment.ts"), "--stdio"];

/** The frameworks' venv (`npm run setup:engines`): required in CI, else the framework tests are skipped. */
function haveAgentsVenv(): boolean {
  if (existsSync(PYTHON)) return true;
  if (process.env.CI) throw new Error(`${PYTHON} is missing: run npm run setup:engines`);
  console.warn("skipping the agent framework tests: run npm run setup:engines");
  return false;
}
const frameworks = haveAgentsVenv();

let gateway: InProcessGateway;
let sim: SimulatedLlm;
let proxy: RecordingProxy;

beforeAll(async () => {
  [gateway, sim] = await Promise.all([
    startTestGateway({ servers: { kv: { command: process.execPath, args: KV } } }),
    startSimulatedLlm({ policy: "converse", seed: 5, policyOptions: { tool: "kv__append" } }),
  ]);
  proxy = await startRecordingProxy(sim.url);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await gateway?.stop();
});

/** Whether a process runs (a zombie left for an init that does not reap counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** Writes tasks and a config, runs `rlf rollout agent`, and reads back what it wrote. */
async function rollOutAgent(opts: {
  /** The agent's command line; absent: the built-in loop (`rlf rollout`) on the same config. */
  agent?: string;
  tasks: Record<string, unknown>[];
  groupSize: number;
  reward: string;
  extra?: string[];
}) {
  const dir = tempDir("rlf-rollout-agent-");
  writeFileSync(join(dir, "tasks.jsonl"), `${opts.tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  writeFileSync(
    join(dir, "rollout.yaml"),
    [
      `inference: { engine: vllm, urls: [${proxy.url}] }`,
      `gateway: { address: "${gateway.gateway.grpcAddress}" }`,
      "format: hermes",
      "dataset: { path: tasks.jsonl }",
      `rollout: { group_size: ${opts.groupSize}, max_concurrency: 8, sampling: { max_tokens: 200 } }`,
      `reward: { components: [${opts.reward}] }`,
      "output: { parquet: true }",
    ].join("\n"),
  );
  const out = join(dir, "out");
  const run = await promisify(execFile)(
    process.execPath,
    [
      RLF,
      "rollout",
      ...(opts.agent === undefined
        ? []
        : ["agent", "--agent", opts.agent, "--gateway-mcp", `${gateway.gateway.adminUrl}/mcp`]),
      "--config",
      join(dir, "rollout.yaml"),
      "--out",
      out,
      "--no-progress",
      ...(opts.extra ?? []),
    ],
    { cwd: ROOT, timeout: 400_000 },
  ).catch((e: { code?: number; stdout?: string; stderr?: string }) => e);
  const trajectories = readFileSync(join(out, "trajectories.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Trajectory);
  return { run, out, trajectories };
}

/** The server's answers already matched to a sampled turn. */
const used = new Set<Exchange>();

/** Every sampled turn is one answer of the inference server, asked with exactly the ids before it. */
function checkAgainstServer(t: Trajectory): void {
  const all = [...t.prompt_ids, ...t.response_ids];
  const sampled = t.turns.filter((x) => x.kind === "sampled");
  expect(sampled.length, t.status_reason ?? "").toBeGreaterThan(0);
  for (const turn of t.turns) {
    const mask = t.loss_mask.slice(turn.start, turn.end);
    const logprobs = t.rollout_logprobs.slice(turn.start, turn.end);
    if (turn.kind === "observation") {
      expect(new Set(mask)).toEqual(new Set([0]));
      expect(new Set(logprobs)).toEqual(new Set([0]));
      continue;
    }
    const before = all.slice(0, t.prompt_ids.length + turn.start);
    const ids = t.response_ids.slice(turn.start, turn.end);
    const logprobsOf = (e: Exchange) => e.logprobs.every((v, k) => v === logprobs[k]);
    // each answer of the server backs one sampled turn (group members may send the same prompt)
    const exchange = proxy.exchanges.find(
      (e) =>
        !used.has(e) &&
        e.promptIds.length === before.length &&
        e.promptIds.every((id, k) => id === before[k]) &&
        e.ids.length === ids.length &&
        e.ids.every((id, k) => id === ids[k]) &&
        logprobsOf(e),
    );
    expect(exchange, `no server answer matches sampled turn at ${turn.start}`).toBeDefined();
    used.add(exchange!);
    expect(new Set(mask)).toEqual(new Set([1]));
  }
}

describe.skipIf(!frameworks)("OpenAI Agents SDK agent with MCP tools, 8 tasks × group 4", () => {
  const tasks = Array.from({ length: 8 }, (_, i) => ({
    id: `kv-${i}`,
    data_source: "agent-e2e",
    prompt: [{ role: "user", content: `call kv__append: {"key": "log", "value": "v${i}"}` }],
    ground_truth: { final_state: { log: `v${i}` } },
    extra_info: {},
    environment: { server: "kv", config: {} },
  }));
  // rewards that count calls: one call each, so the penalty past 0 calls is there exactly when the call is
  const reward = [
    "{ type: state_match, expected_from: ground_truth.final_state }",
    "{ type: tool_precision }",
    "{ type: tool_call_penalty, max_calls: 0, penalty: 0.1 }",
  ].join(", ");
  let result: Awaited<ReturnType<typeof rollOutAgent>>;
  /** The built-in loop on the same tasks, model and gateway: what the agent's record must match. */
  let builtIn: Awaited<ReturnType<typeof rollOutAgent>>;
  beforeAll(async () => {
    builtIn = await rollOutAgent({ tasks, groupSize: 1, reward });
    result = await rollOutAgent({ agent: `${PYTHON} ${OPENAI_AGENT}`, tasks, groupSize: 4, reward });
  }, 480_000);

  it("every trajectory completes: the agent called kv__append over MCP in its own episode and is scored", () => {
    const { trajectories } = result;
    expect(trajectories).toHaveLength(32);
    for (const t of trajectories) {
      const seen = JSON.stringify({ reason: t.status_reason, meta: t.metadata });
      expect([t.status, t.status_reason], seen).toEqual(["completed", "agent_exited"]);
      // the episode's final state: this sample's own append, nobody else's
      const env = t.metadata?.environment as { snapshots: { final?: boolean; state: unknown }[] };
      expect(env.snapshots, seen).toEqual([
        { user_turn: 0, final: true, state: { log: `v${t.task_id.slice(3)}` } },
      ]);
      expect(t.reward_components, seen).toEqual({
        state_match: 1,
        tool_precision: 1,
        tool_call_penalty: -0.1,
      });
    }
  });

  it("its tool calls are in the record as the built-in loop records them, and count-based rewards score it alike", () => {
    const own = new Map(builtIn.trajectories.map((t) => [t.task_id, t]));
    expect(own.size).toBe(8);
    for (const t of result.trajectories) {
      const mine = own.get(t.task_id)!;
      const seen = JSON.stringify({ calls: t.tool_calls, builtIn: mine.tool_calls });
      // the call the model wrote (the simulated server's Hermes text), made in the first sampled turn
      expect(
        t.tool_calls.map((c) => [c.name, c.arguments, c.turn, c.error_code, c.is_error]),
        seen,
      ).toEqual([["kv__append", { key: "log", value: `v${t.task_id.slice(3)}` }, 0, null, false]]);
      // the result the agent sent back is the gateway's answer to the built-in loop's same call
      expect(mine.tool_calls).toHaveLength(1);
      expect(t.tool_calls[0]!.result, seen).toBe(mine.tool_calls[0]!.result);
      expect(t.tool_calls[0]!.latency_ms).toBeGreaterThanOrEqual(0);
      // the gateway's call log of this run has the call the SDK made over MCP, paired with the model's
      // (the built-in run's call under the same trajectory id left out)
      expect(t.metadata?.capture, seen).toMatchObject({
        gateway_calls: 1,
        gateway_calls_unmatched: 0,
        gateway_calls_failed: 0,
        tool_calls_unmatched: 0,
      });
      expect([t.reward, t.reward_components]).toEqual([mine.reward, mine.reward_components]);
    }
  });

  it("per-token ids, masks and logprobs are what the inference server returned", () => {
    for (const t of result.trajectories) {
      // a tool call, then the reply after the tool's result: two sampled turns around an observation
      expect(t.turns.map((x) => x.kind)).toEqual(["sampled", "observation", "sampled"]);
      checkAgainstServer(t);
      const capture = t.metadata?.capture as { requests: { prefix: string }[] };
      expect(capture.requests.map((r) => r.prefix)).toEqual(["start", "extends"]);
    }
  });

  it("groups of 4 with GRPO advantages, summary.json and Parquet as `rlf rollout` writes them", () => {
    const { trajectories, out, run } = result;
    const groups = new Map<string, Trajectory[]>();
    for (const t of trajectories) groups.set(t.group_id, [...(groups.get(t.group_id) ?? []), t]);
    expect([...groups.values()].map((g) => g.length)).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
    for (const t of trajectories) expect(t.advantage).toBe(0); // every sample scored 1: no signal
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.trajectories).toBe(32);
    expect(existsSync(join(out, "trajectories.parquet"))).toBe(true);
    expect((run as { stdout: string }).stdout).toContain("wrote 32 trajectories");
  });
});

describe.skipIf(!frameworks)("smolagents ToolCallingAgent", () => {
  it("answers through its final_answer tool: scored on what it printed, tokens as the server returned", async () => {
    const tasks = Array.from({ length: 2 }, (_, i) => ({
      id: `fa-${i}`,
      data_source: "agent-e2e",
      prompt: [{ role: "user", content: `call final_answer: {"answer": "paris ${i}"}` }],
      ground_truth: `paris ${i}`,
      extra_info: {},
    }));
    const { trajectories } = await rollOutAgent({
      agent: `${PYTHON} ${SMOL_AGENT}`,
      tasks,
      groupSize: 2,
      reward: "{ type: exact_match }",
    });
    expect(trajectories).toHaveLength(4);
    for (const t of trajectories) {
      const seen = JSON.stringify({ reason: t.status_reason, meta: t.metadata });
      expect([t.status, t.reward], seen).toEqual(["completed", 1]);
      checkAgainstServer(t);
      // the call the agent ran in its own code and never answered: recorded, with no result
      expect(
        t.tool_calls.map((c) => [c.name, c.arguments, c.result, c.turn]),
        seen,
      ).toEqual([["final_answer", { answer: `paris ${t.task_id.slice(3)}` }, "", 0]]);
    }
  }, 180_000);
});

describe("an agent that crashes or hangs", () => {
  const tasks = [{ id: "t", data_source: "x", prompt: [{ role: "user", content: "hi" }], extra_info: {} }];

  it("a crash is a failed trajectory naming the exit code and the agent's last words", async () => {
    const { trajectories, run } = await rollOutAgent({
      agent: `${process.execPath} -e "console.error('boom: no key'); process.exit(3)"`,
      tasks,
      groupSize: 2,
      reward: "{ type: exact_match }",
    });
    expect(trajectories.map((t) => [t.status, t.status_reason, t.reward])).toEqual([
      ["failed", "agent exited with code 3: boom: no key", null],
      ["failed", "agent exited with code 3: boom: no key", null],
    ]);
    expect((run as { code?: number }).code).toBe(1); // every trajectory failed
  }, 60_000);

  it("one past --deadline-ms is killed, with its children, and fails as agent_timeout", async () => {
    const pidFile = join(tempDir("rlf-agent-hang-"), "child.pid");
    // the agent starts a child that records its pid and lives on, then hangs itself (the deadline leaves
    // both time to start on a loaded machine)
    const child = `require('fs').writeFileSync('${pidFile}', String(process.pid)); setInterval(() => {}, 1000)`;
    const script = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(child)}], {stdio: 'inherit'}); setInterval(() => {}, 1000)`;
    const { trajectories } = await rollOutAgent({
      agent: `${process.execPath} -e '${script.replaceAll("'", "'\\''")}'`,
      tasks,
      groupSize: 1,
      reward: "{ type: exact_match }",
      extra: ["--deadline-ms", "20000"],
    });
    expect(trajectories.map((t) => [t.status, t.status_reason])).toEqual([
      ["failed", "agent_timeout after 20000 ms"],
    ]);
    // the agent's child went with its process group
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(false);
  }, 120_000);
});
