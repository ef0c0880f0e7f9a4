// Issue 25's acceptance for agent tools: a rollout whose policy (the simulated inference server, vLLM
// protocol, `converse`) calls a model tool (`writer__summarise`) and an agent tool (`research__ask`:
// a sub-agent over the real search tool and writer__summarise), then the agent tool again past its
// server's per-trajectory call budget. The tools' models are two more simulated servers (OpenAI chat).
// The gateway runs as `rlf gateway` exporting spans to a real OTLP receiver.
//
// Checks: the trajectory records both calls with their usage, and the refusal as BUDGET_EXCEEDED the
// policy saw; none of the sub-agent's tokens (its prompt, its tool calls, its transcript) entered the
// policy's token sequence, only its final answer, under loss mask 0; the agent tool's span has its model
// calls and its inner tool calls as children, and each inner call went through the gateway's request path
// (its own `tools/call` client span).
import {
  createRolloutEngine,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway } from "@rlfactory/test-support/gateway-harness";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "@rlfactory/test-support/otlp-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SUMMARISE = "writer__summarise";
const ASK = "research__ask";
const QUESTION = "Which film did Scott Derrickson direct in 2016?";
const SYSTEM = "You are a research assistant.";

let tokenizer: ModelTokenizer;
let receiver: OtlpReceiver;
let gateway: ChildGateway;
let policy: SimulatedLlm;
let writer: SimulatedLlm;
let researcher: SimulatedLlm;
let trajectory: Trajectory;

const TASK: Task = {
  id: "agent-tool",
  data_source: "e2e",
  prompt: [{ role: "user", content: "Hello." }],
  ground_truth: "done",
  extra_info: {},
  tools: [],
  turns: [
    { content: `Please call ${SUMMARISE}: {"text": "The fox jumps over the dog."}`, tools: [SUMMARISE, ASK] },
    { content: `Now call ${ASK}: {"question": "${QUESTION}"}`, tools: [SUMMARISE, ASK] },
    { content: `Again, call ${ASK}: {"question": "Who is Ed Wood?"}`, tools: [SUMMARISE, ASK] },
    { content: "answer: done", tools: [] },
  ],
};

beforeAll(async () => {
  [tokenizer, receiver, policy, writer, researcher] = await Promise.all([
    qwen3Tokenizer(),
    startOtlpReceiver(),
    startSimulatedLlm({ policy: "converse", seed: 5 }),
    startSimulatedLlm({ policy: "converse", seed: 6 }),
    startSimulatedLlm({
      policy: "research",
      seed: 7,
      policyOptions: { tool: "search__search", summarise: SUMMARISE },
    }),
  ]);
  gateway = await spawnGateway(
    {
      servers: {
        search: { command: process.execPath, args: [RLF, "tool", "search", "--stdio"], cwd: ROOT },
        writer: {
          kind: "model",
          endpoint: { base_url: `${writer.url}/v1`, model: "writer", temperature: 0, max_tokens: 256 },
          model_tools: {
            summarise: {
              input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
              messages: [{ role: "user", content: "Summarise: {{text}}" }],
            },
          },
        },
        research: {
          kind: "agent",
          endpoint: {
            base_url: `${researcher.url}/v1`,
            model: "researcher",
            temperature: 0,
            max_tokens: 512,
            price_per_million_tokens: { prompt: 1, completion: 4 },
          },
          trajectory_budget: { calls: 1 },
          agent_tools: {
            ask: {
              input_schema: {
                type: "object",
                properties: { question: { type: "string" } },
                required: ["question"],
              },
              messages: [
                { role: "system", content: `${SYSTEM} Search, summarise, cite.` },
                { role: "user", content: "Question: {{question}}" },
              ],
              tools: ["search__search", SUMMARISE],
              max_steps: 4,
              transcript: true,
            },
          },
        },
      },
    },
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    },
  );
  const engine = await createRolloutEngine(
    parseRolloutConfig({
      inference: { engine: "vllm", urls: [policy.url] },
      gateway: { address: gateway.grpcAddress, tools: [SUMMARISE, ASK], deadline_ms: 60_000 },
      format: "hermes",
      rollout: {
        group_size: 1,
        max_turns: 12,
        max_concurrency: 1,
        max_context_tokens: 16_384,
        sampling: { temperature: 0, max_tokens: 256 },
      },
      reward: { components: [{ type: "exact_match", weight: 1 }] },
      seed: 3,
    }),
  );
  try {
    const out: Trajectory[] = [];
    for await (const group of engine.rollout([TASK])) out.push(...group.trajectories);
    expect(out).toHaveLength(1);
    trajectory = out[0]!;
  } finally {
    await engine.close();
  }
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([policy?.close(), writer?.close(), researcher?.close(), receiver?.close()]);
});

describe("a rollout whose policy calls a model tool and an agent tool", () => {
  it("records both calls with their usage, and the agent tool's refusal past its budget", () => {
    const t = trajectory;
    const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls });
    expect([t.status, t.status_reason, t.reward], seen).toEqual(["completed", "answer", 1]);
    expect(
      t.tool_calls.map((c) => [c.name, c.error_code, c.is_error]),
      seen,
    ).toEqual([
      [SUMMARISE, null, false],
      [ASK, null, false],
      [ASK, "BUDGET_EXCEEDED", true],
    ]);
    const [summarised, asked, refused] = t.tool_calls;
    expect(summarised?.result).toBe("You said: Summarise: The fox jumps over the dog.");
    expect(summarised?.usage).toMatchObject({ model: writer.model });
    expect(summarised?.usage?.prompt_tokens).toBe(writer.requests[0]?.promptIds.length);
    // the agent's usage: its own three model calls (search, summarise, answer), priced
    expect(researcher.requests).toHaveLength(3);
    const prompt = researcher.requests.reduce((n, r) => n + r.promptIds.length, 0);
    const completion = asked!.usage!.completion_tokens;
    expect(asked?.usage).toEqual({
      prompt_tokens: prompt,
      completion_tokens: completion,
      cost_usd: (prompt * 1 + completion * 4) / 1_000_000,
      model: researcher.model,
    });
    expect(asked?.result).toMatch(/^You said: Summarise: [\s\S]+\n\nSources:\n\[1\] ".+"/);
    expect(asked?.result).toContain("Doctor Strange");
    expect(refused?.result).toMatch(/its 1 calls of server "research" \(trajectory_budget\.calls\)/);
    expect(refused?.usage).toBeUndefined();
    // the refusal reached no model: the writer served the policy's call and the agent's one
    expect([researcher.requests.length, writer.requests.length]).toEqual([3, 2]);
  });

  it("keeps the sub-agent's tokens out of the policy's sequence: only its answer, under mask 0", () => {
    const t = trajectory;
    const text = tokenizer.decode(t.response_ids);
    expect(text).not.toContain(SYSTEM);
    expect(text).not.toContain('"name": "search__search"');
    const asked = t.tool_calls[1]!;
    const observation = t.turns.find(
      (x) =>
        x.kind === "observation" &&
        tokenizer.decode(t.response_ids.slice(x.start, x.end)).includes("Sources:"),
    );
    expect(observation).toBeDefined();
    expect(tokenizer.decode(t.response_ids.slice(observation!.start, observation!.end))).toContain(
      asked.result.split("\n")[0],
    );
    expect(t.loss_mask.slice(observation!.start, observation!.end).every((m) => m === 0)).toBe(true);
    // the policy saw the refusal and answered it
    const replies = t.turns
      .filter((x) => x.kind === "sampled")
      .map((x) => tokenizer.decode(t.response_ids.slice(x.start, x.end)));
    expect(replies.some((r) => r.includes("Result:") && r.includes("BUDGET_EXCEEDED"))).toBe(true);
  });

  it("traces the agent tool's model calls and inner tool calls as its span's children, each inner call on the request path", async () => {
    const isAsk = (s: ReceivedSpan) => s.name === `call ${ASK}` && s.serviceName === "rlf-gateway";
    const asks = await receiver.waitFor(isAsk, 15_000, 2);
    // the refused call never reached the agent: its span ends with error.type BUDGET_EXCEEDED
    const ask = asks.find((s) => s.attributes["error.type"] === undefined);
    const refused = asks.find((s) => s.attributes["error.type"] !== undefined);
    const all = () => receiver.spans().filter((s) => s.traceId === ask!.traceId);
    expect(refused?.attributes["error.type"]).toBe("BUDGET_EXCEEDED");
    expect(ask?.attributes["rlf.trajectory_id"]).toBeDefined();
    const client = (
      await receiver.waitFor((s) => s.parentSpanId === ask!.spanId && s.name === "tools/call ask", 15_000)
    )[0]!;
    const children = await receiver.waitFor((s) => s.parentSpanId === client.spanId, 15_000, 5);
    const chats = children.filter((s) => s.name === "chat researcher");
    expect(chats.map((s) => s.attributes["rlf.agent.step"])).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(chats.map((s) => s.attributes["gen_ai.usage.input_tokens"]).sort()).toEqual(
      researcher.requests.map((r) => r.promptIds.length).sort(),
    );
    const inner = children.filter((s) => s.name.startsWith("agent call "));
    expect(inner.map((s) => s.name).sort()).toEqual(["agent call search__search", `agent call ${SUMMARISE}`]);
    // each inner call took the gateway's request path: the invoker annotated it, and its upstream call is a child
    for (const s of inner) {
      expect(s.attributes["rlf.trajectory_id"]).toBe(ask!.attributes["rlf.trajectory_id"]);
      const upstream = await receiver.waitFor(
        (x) => x.parentSpanId === s.spanId && x.kind === "CLIENT",
        15_000,
      );
      expect(upstream[0]?.name).toBe(`tools/call ${s.name.endsWith("search") ? "search" : "summarise"}`);
    }
    expect(all().length).toBeGreaterThan(children.length);
  });
});
