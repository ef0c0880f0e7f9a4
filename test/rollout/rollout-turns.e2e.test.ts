// Multi-turn conversations end to end: the simulated inference server (vLLM protocol, real Qwen3
// tokenizer, the `converse` policy) + a real gateway + the real calculator tool server, with later user
// turns from a task's script or from the LLM user simulator (the scripted chat fixture on loopback).
// Checks: every request's prompt is the previous one + its response + the appended tokens, user turns
// have loss mask 0, the tool list switches per turn, the user simulator runs a 3-turn task to its stop
// marker, and an unreachable or empty-handed simulator is a typed trajectory failure.
import {
  createRolloutEngine,
  type ModelTokenizer,
  parseRolloutConfig,
  qwen3Tokenizer,
  type RolloutConfigInput,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, RLF, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import {
  SCRIPTED_CHAT_MODEL,
  type ScriptedChatFixture,
  startScriptedChatFixture,
} from "@rlfactory/test-support/scripted-chat-fixture";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CALC = "calculator__calculate";

let tokenizer: ModelTokenizer;
let gateway: InProcessGateway;
let sim: SimulatedLlm;

function config(userSimulatorUrl?: string): RolloutConfigInput {
  return {
    inference: { engine: "vllm", urls: [sim.url] },
    gateway: { address: gateway.gateway.grpcAddress, tools: [CALC], deadline_ms: 30_000 },
    format: "hermes",
    rollout: {
      group_size: 2,
      max_turns: 8,
      max_concurrency: 8,
      max_context_tokens: 8192,
      sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 128 },
    },
    reward: { components: [{ type: "exact_match", weight: 1 }] },
    ...(userSimulatorUrl === undefined
      ? {}
      : {
          user_simulator: {
            url: userSimulatorUrl,
            model: SCRIPTED_CHAT_MODEL,
            max_turns: 4,
            timeout_ms: 5_000,
          },
        }),
    seed: 3,
  };
}

async function rollOut(raw: RolloutConfigInput, batch: Task[]): Promise<Trajectory[]> {
  const engine = await createRolloutEngine(parseRolloutConfig(raw));
  try {
    const out: Trajectory[] = [];
    for await (const group of engine.rollout(batch)) out.push(...group.trajectories);
    return out;
  } finally {
    await engine.close();
  }
}

const kinds = (t: Trajectory) => t.turns.map((x) => x.kind[0]).join("");
const textOf = (t: Trajectory, i: number) =>
  tokenizer.decode(t.response_ids.slice(t.turns[i]!.start, t.turns[i]!.end));

/**
 * The distinct prompts the simulated server got for one trajectory (those that are a prefix of its
 * prompt + response), shortest first. The group's samples may write the same ids and share them.
 */
function requestsOf(t: Trajectory): number[][] {
  const full = [...t.prompt_ids, ...t.response_ids];
  const mine = sim.requests
    .map((r) => r.promptIds)
    .filter((ids) => ids.length <= full.length && ids.every((id, i) => id === full[i]));
  return [...new Map(mine.map((ids) => [ids.join(","), ids])).values()].sort((a, b) => a.length - b.length);
}

beforeAll(async () => {
  [tokenizer, gateway, sim] = await Promise.all([
    qwen3Tokenizer(),
    startTestGateway({
      servers: { calculator: { command: process.execPath, args: [RLF, "tool", "calculator", "--stdio"] } },
    }),
    startSimulatedLlm({ policy: "converse", seed: 5, policyOptions: { tool: CALC } }),
  ]);
  // the first call starts the calculator's workers: not a thing these tests are about
  await gateway.client.callTool({ name: CALC, arguments_json: '{"expression": "1 + 1"}' });
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await gateway?.stop();
});

describe("a task's scripted user turns", () => {
  const TASK: Task = {
    id: "scripted-3-turns",
    data_source: "e2e",
    prompt: [{ role: "user", content: "Hello." }],
    ground_truth: "42",
    extra_info: {},
    tools: [],
    turns: [
      { content: 'Please call: {"expression": "6 * 7"}', tools: [CALC] },
      { content: "answer: 42", tools: [] },
    ],
  };
  let trajectories: Trajectory[];
  beforeAll(async () => {
    sim.requests.length = 0;
    trajectories = await rollOut(config(), [TASK]);
  }, 60_000);

  it("runs the three user turns to the answer, calling the tool offered in the second", () => {
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls });
      expect([t.status, t.status_reason, t.reward], seen).toEqual(["completed", "answer", 1]);
      expect(kinds(t), seen).toBe("sososos");
      expect(
        t.tool_calls.map((c) => [c.name, c.result.trim(), c.error_code]),
        seen,
      ).toEqual([[CALC, "6 * 7 = 42", null]]);
      expect(textOf(t, 0)).toContain("You said: Hello.");
      expect(textOf(t, 4)).toContain("Result: 6 * 7 = 42");
    }
  });

  it("sends each request as the previous prompt + its response + the appended user or tool tokens", () => {
    for (const t of trajectories) {
      const requests = requestsOf(t);
      expect(requests).toHaveLength(4);
      const sampled = t.turns.filter((x) => x.kind === "sampled");
      for (let k = 0; k < requests.length; k++) {
        // request k holds the prompt and everything before sampled turn k, exactly
        expect(requests[k]).toEqual([...t.prompt_ids, ...t.response_ids.slice(0, sampled[k]!.start)]);
      }
    }
  });

  it("appends the user turns with loss mask 0, the tool list first where it changes, and records them", () => {
    const t = trajectories[0]!;
    expect(tokenizer.decode(t.prompt_ids)).not.toContain("<tools>");
    const user1 = textOf(t, 1);
    expect(user1).toMatch(/^\n<\|im_start\|>system\nThe tools available from now on changed\./);
    expect(user1).toContain(`"name": "${CALC}"`);
    expect(user1).toContain('<|im_start|>user\nPlease call: {"expression": "6 * 7"}<|im_end|>');
    const user2 = textOf(t, 5);
    expect(user2).toContain("No tools are available from now on");
    expect(user2).toContain("<|im_start|>user\nanswer: 42<|im_end|>");
    for (const i of [1, 5]) {
      const turn = t.turns[i]!;
      expect(t.loss_mask.slice(turn.start, turn.end).every((m) => m === 0)).toBe(true);
    }
    expect(t.metadata?.user_turns).toEqual([
      { index: 0, source: "prompt", content: "Hello.", turn: null, response_start: 0, tools: [] },
      {
        index: 1,
        source: "script",
        content: 'Please call: {"expression": "6 * 7"}',
        turn: 1,
        response_start: t.turns[1]!.start,
        tools: [CALC],
      },
      {
        index: 2,
        source: "script",
        content: "answer: 42",
        turn: 5,
        response_start: t.turns[5]!.start,
        tools: [],
      },
    ]);
  });
});

describe("the LLM user simulator", () => {
  const TASK: Task = {
    id: "simulated-3-turns",
    data_source: "e2e",
    prompt: [{ role: "user", content: "Hello." }],
    ground_truth: "42",
    extra_info: {},
    user_simulator: { instruction: "You want to know what 6 times 7 is; have the agent compute it." },
  };
  let fixture: ScriptedChatFixture;
  afterAll(async () => {
    await fixture?.close();
  });

  it("runs a 3-turn task end to end: two simulated user messages, then the stop marker", async () => {
    fixture = await startScriptedChatFixture([
      'Please call: {"expression": "6 * 7"}',
      "answer: 42",
      "###STOP###",
    ]);
    const trajectories = await rollOut(config(fixture.url), [TASK]);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      expect([t.status, t.status_reason, t.reward]).toEqual(["completed", "user_stop", 1]);
      expect(kinds(t)).toBe("sososos");
      expect(t.tool_calls.map((c) => [c.name, c.result.trim()])).toEqual([[CALC, "6 * 7 = 42"]]);
      expect(
        ((t.metadata?.user_turns ?? []) as { source: string; content: string }[]).map((u) => [
          u.source,
          u.content,
        ]),
      ).toEqual([
        ["prompt", "Hello."],
        ["simulator", 'Please call: {"expression": "6 * 7"}'],
        ["simulator", "answer: 42"],
      ]);
    }
    // three requests per trajectory; the last sees the whole conversation from the user's side (its own
    // messages as `assistant`, the policy's replies as `user`)
    expect(fixture.requests).toHaveLength(6);
    const last = fixture.requests.filter((r) => r.messages.length === 7);
    expect(last).toHaveLength(2);
    expect(last[0]!.model).toBe(SCRIPTED_CHAT_MODEL);
    expect(last[0]!.messages.map((m) => m.role)).toEqual([
      "system",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(last[0]!.messages[0]!.content).toContain(`Instruction: ${TASK.user_simulator!.instruction}`);
    expect(last[0]!.messages.slice(1).map((m) => m.content)).toEqual([
      "Hello.",
      "You said: Hello.",
      'Please call: {"expression": "6 * 7"}',
      "Result: 6 * 7 = 42",
      "answer: 42",
      "<answer>42</answer>",
    ]);
  }, 60_000);

  it("an endpoint that is down ends each trajectory failed (user_simulator UNAVAILABLE), unscored", async () => {
    const down = await startScriptedChatFixture([]);
    await down.close(); // nothing listens on its port any more
    const trajectories = await rollOut(config(down.url), [TASK]);
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      expect(t.status).toBe("failed");
      expect(t.status_reason).toMatch(/^user_simulator UNAVAILABLE: /);
      expect([t.reward, kinds(t)]).toEqual([null, "s"]);
    }
  }, 60_000);

  it("an empty message or an error status from the endpoint is a typed failure too", async () => {
    const empty = await startScriptedChatFixture(["   "]);
    const failing = await startScriptedChatFixture([{ status: 400 }]);
    try {
      const [a, b] = [await rollOut(config(empty.url), [TASK]), await rollOut(config(failing.url), [TASK])];
      expect(a.map((t) => [t.status, t.status_reason])).toEqual([
        ["failed", "user_simulator EMPTY_MESSAGE: the user simulator wrote an empty message"],
        ["failed", "user_simulator EMPTY_MESSAGE: the user simulator wrote an empty message"],
      ]);
      for (const t of b)
        expect([t.status, t.status_reason]).toEqual([
          "failed",
          expect.stringMatching(/^user_simulator HTTP_ERROR: /),
        ]);
    } finally {
      await Promise.all([empty.close(), failing.close()]);
    }
  }, 60_000);
});
