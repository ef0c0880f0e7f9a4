// A model tool end to end: the simulated inference server as the policy (vLLM protocol, the `converse`
// policy, real Qwen3 tokenizer) calls `writer__summarise`, a gateway `kind: model` tool whose model is a
// second simulated inference server (OpenAI chat). A task's scripted user turns ask for the call, the
// same call again (answered from the gateway's cache), and a third call past the trajectory's call
// budget. Checks: the rendered prompt reached the tool's model, the trajectory records the call's usage
// (tokens, cost from the configured price), the repeat spent nothing, and BUDGET_EXCEEDED is a typed
// tool error recorded and shown to the policy.
import {
  createRolloutEngine,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TOOL = "writer__summarise";
const TEXT = "The quick brown fox jumps over the lazy dog while the cat sleeps";

let tokenizer: ModelTokenizer;
let gateway: InProcessGateway;
let policy: SimulatedLlm;
let writer: SimulatedLlm;
let trajectory: Trajectory;

const TASK: Task = {
  id: "model-tool",
  data_source: "e2e",
  prompt: [{ role: "user", content: "Hello." }],
  ground_truth: "done",
  extra_info: {},
  tools: [],
  turns: [
    { content: `Please call: {"text": "${TEXT}", "max_words": 3}`, tools: [TOOL] },
    { content: `Again, call: {"text": "${TEXT}", "max_words": 3}`, tools: [TOOL] },
    { content: `Once more, call: {"text": "${TEXT}", "max_words": 4}`, tools: [TOOL] },
    { content: "answer: done", tools: [] },
  ],
};

beforeAll(async () => {
  [tokenizer, policy, writer] = await Promise.all([
    qwen3Tokenizer(),
    startSimulatedLlm({ policy: "converse", seed: 5, policyOptions: { tool: TOOL } }),
    startSimulatedLlm({ policy: "converse", seed: 6 }),
  ]);
  gateway = await startTestGateway({
    servers: {
      writer: {
        kind: "model",
        endpoint: {
          base_url: `${writer.url}/v1`,
          model: "writer",
          temperature: 0,
          max_tokens: 64,
          price_per_million_tokens: { prompt: 2, completion: 8 },
        },
        trajectory_budget: { calls: 1 },
        policy: { cache: "auto" },
        model_tools: {
          summarise: {
            description: "Summarise a text in at most max_words words.",
            input_schema: {
              type: "object",
              properties: { text: { type: "string" }, max_words: { type: "integer", minimum: 1 } },
              required: ["text", "max_words"],
            },
            messages: [
              { role: "system", content: "You write short summaries." },
              { role: "user", content: "Summarise in {{max_words}} words: {{text}}" },
            ],
          },
        },
      },
    },
  });
  const engine = await createRolloutEngine(
    parseRolloutConfig({
      inference: { engine: "vllm", urls: [policy.url] },
      gateway: { address: gateway.gateway.grpcAddress, tools: [TOOL], deadline_ms: 30_000 },
      format: "hermes",
      rollout: {
        group_size: 1,
        max_turns: 12,
        max_concurrency: 1,
        max_context_tokens: 8192,
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
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([policy?.close(), writer?.close()]);
});

describe("a rollout whose policy calls a model tool", () => {
  it("records three calls: answered, answered again from the cache, refused past the budget", () => {
    const t = trajectory;
    const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls });
    expect([t.status, t.status_reason, t.reward], seen).toEqual(["completed", "answer", 1]);
    expect(
      t.tool_calls.map((c) => [c.name, c.error_code, c.is_error]),
      seen,
    ).toEqual([
      [TOOL, null, false],
      [TOOL, null, false],
      [TOOL, "BUDGET_EXCEEDED", true],
    ]);
    // The tool's model (the simulator's `converse` policy echoes its user message) got the rendered prompt.
    expect(t.tool_calls[0]?.result).toBe(`You said: Summarise in 3 words: ${TEXT}`);
    expect(t.tool_calls[1]?.result).toBe(t.tool_calls[0]?.result);
    expect(t.tool_calls[2]?.result).toMatch(/its 1 calls of server "writer" \(trajectory_budget\.calls\)/);
  });

  it("sent the tool's model one request (the repeat was cached, the third refused before it)", () => {
    expect(writer.requests).toHaveLength(1);
    expect(writer.requests[0]?.protocol).toBe("chat");
    expect(tokenizer.decode(writer.requests[0]!.promptIds)).toContain(
      `<|im_start|>user\nSummarise in 3 words: ${TEXT}<|im_end|>`,
    );
  });

  it("records the answered call's usage, with its cost from the configured price; the cached repeat spent nothing", () => {
    const [first, repeat, refused] = trajectory.tool_calls;
    const request = writer.requests[0]!;
    const completion = tokenizer.encode(first!.result).length + 1; // the text and the EOS
    expect(first?.usage).toEqual({
      prompt_tokens: request.promptIds.length,
      completion_tokens: completion,
      cost_usd: (request.promptIds.length * 2 + completion * 8) / 1_000_000,
      model: writer.model, // the model the answer names
    });
    expect(repeat?.usage).toBeUndefined();
    expect(refused?.usage).toBeUndefined();
  });

  it("shows the budget refusal to the policy as a tool error it answers", () => {
    const t = trajectory;
    const sampled = t.turns.filter((x) => x.kind === "sampled");
    const replies = sampled.map((x) => tokenizer.decode(t.response_ids.slice(x.start, x.end)));
    const afterRefusal = replies.find((r) => r.includes("Result:") && r.includes("BUDGET_EXCEEDED"));
    expect(afterRefusal, replies.join("\n---\n")).toBeDefined();
    // every observation turn (tool results and user turns) has loss mask 0
    for (const turn of t.turns.filter((x) => x.kind === "observation"))
      expect(t.loss_mask.slice(turn.start, turn.end).every((m) => m === 0)).toBe(true);
  });
});
