// Agent capture against the simulated inference server (real Qwen3 tokenizer, vLLM token-in protocol): an
// agent loop written here with plain `fetch` in the OpenAI chat format drives the capture endpoint. What
// the inference server returned is recorded by a pass-through proxy in front of it, so the trajectory is
// checked against the server's own answers, not against the capture code's bookkeeping; observation tokens are
// checked against our own loop's fixed-base observation delta (tokenizer/observation-delta.ts).
import type { ChatTool, Trajectory } from "@rlfactory/contracts";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type Exchange, startRecordingProxy } from "@rlfactory/test-support/recording-proxy";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createSampler } from "../inference/sampler-config.ts";
import type { TokenSampler } from "../inference/types.ts";
import { toolCallFormat } from "../parsers/registry.ts";
import { summarizeRollout } from "../report/summary.ts";
import { formatSummary } from "../report/summary-text.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { createObservationDelta } from "../tokenizer/observation-delta.ts";
import { type CaptureServer, startCaptureServer } from "./capture-server.ts";

const SEARCH_TOOL = {
  type: "function",
  function: {
    name: "search__search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

interface ChatReply {
  choices: {
    message: {
      role: string;
      content: string | null;
      tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
    };
    finish_reason: string;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

/** The agent: an OpenAI-style tool loop over plain HTTP, as any client library would run it. */
async function agentLoop(
  baseUrl: string,
  options: { followUp?: string; maxTurns?: number } = {},
): Promise<ChatReply[]> {
  const messages: unknown[] = [{ role: "user", content: "Question: who wrote Hamlet" }];
  const replies: ChatReply[] = [];
  const ask = async (seed: number): Promise<ChatReply> => {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "any",
        messages,
        tools: [SEARCH_TOOL],
        temperature: 1,
        seed,
        max_tokens: 200,
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const reply = (await res.json()) as ChatReply;
    replies.push(reply);
    messages.push(reply.choices[0]!.message);
    return reply;
  };
  for (let turn = 0; turn < (options.maxTurns ?? 6); turn++) {
    const reply = await ask(turn);
    const message = reply.choices[0]!.message;
    if (!message.tool_calls) break;
    for (const call of message.tool_calls) {
      const { query } = JSON.parse(call.function.arguments) as { query: string };
      messages.push({ role: "tool", tool_call_id: call.id, content: `no results for ${query}` });
    }
  }
  if (options.followUp !== undefined) {
    messages.push({ role: "user", content: options.followUp });
    await ask(100);
  }
  return replies;
}

/** The sampled turns of a trajectory: ids, logprobs and masks per turn, read from the flat record. */
function sampledTurns(t: Trajectory) {
  return t.turns
    .filter((turn) => turn.kind === "sampled")
    .map((turn) => ({
      start: turn.start,
      ids: t.response_ids.slice(turn.start, turn.end),
      logprobs: t.rollout_logprobs.slice(turn.start, turn.end),
      mask: t.loss_mask.slice(turn.start, turn.end),
    }));
}

/** Checks a trajectory against the server's exchanges it holds: prompts are the record's prefixes, answers its sampled turns. */
function expectMatchesServer(t: Trajectory, exchanges: readonly Exchange[]): void {
  const sampled = sampledTurns(t);
  expect(sampled).toHaveLength(exchanges.length);
  expect(t.prompt_ids).toEqual(exchanges[0]!.promptIds);
  exchanges.forEach((x, k) => {
    const turn = sampled[k]!;
    expect(turn.ids).toEqual(x.ids);
    expect(turn.logprobs).toEqual(x.logprobs);
    expect(turn.mask).toEqual(x.ids.map(() => 1));
    // what the server was sent for turn k is exactly the record up to that turn
    expect(x.promptIds).toEqual([...t.prompt_ids, ...t.response_ids.slice(0, turn.start)]);
  });
  // every other token is an observation: mask 0, logprob 0
  const sampledCount = exchanges.reduce((n, x) => n + x.ids.length, 0);
  expect(t.loss_mask.filter((m) => m === 1)).toHaveLength(sampledCount);
  t.turns
    .filter((turn) => turn.kind === "observation")
    .forEach((turn) => {
      expect(t.rollout_logprobs.slice(turn.start, turn.end).every((lp) => lp === 0)).toBe(true);
    });
}

/** Qwen3-like ChatML that renders only the latest assistant message in full: earlier ones lose their content. */
const DROP_EARLIER_ASSISTANT = `{%- set ns = namespace(last=-1) %}
{%- for m in messages %}{%- if m.role == 'assistant' %}{%- set ns.last = loop.index0 %}{%- endif %}{%- endfor %}
{%- for m in messages %}
{%- if m.role == 'assistant' %}
{{- '<|im_start|>assistant\\n' }}
{%- if loop.index0 == ns.last %}
{{- m.content }}
{%- if m.tool_calls %}{%- for tc in m.tool_calls %}
{{- '<tool_call>\\n{"name": "' + tc.function.name + '", "arguments": ' + tc.function.arguments + '}\\n</tool_call>' }}
{%- endfor %}{%- endif %}
{%- else %}{{- '(earlier turn)' }}{%- endif %}
{{- '<|im_end|>\\n' }}
{%- elif m.role == 'tool' %}
{{- '<|im_start|>user\\n<tool_response>\\n' + m.content + '\\n</tool_response><|im_end|>\\n' }}
{%- else %}
{{- '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}`;

let tok: ModelTokenizer;
const live: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  tok = await qwen3Tokenizer();
});
afterEach(async () => {
  for (const x of live.splice(0).reverse()) await x.close();
});

/** Simulator (one Hermes call per turn for two turns, then an answer) → recording proxy → vLLM client → capture. */
async function stack(
  tokenizer: ModelTokenizer,
  options: { think?: boolean; turnMs?: [number, number] } = {},
) {
  const llm: SimulatedLlm = await startSimulatedLlm({
    ...(options.turnMs && { latency: { turnMs: options.turnMs } }),
    policy: "parallel-calls",
    policyOptions: { calls: 1, turns: 2, think: options.think ?? false },
    tokenizer,
  });
  live.push(llm);
  const proxy = await startRecordingProxy(llm.url);
  live.push({ close: () => proxy.close() });
  const sampler = createSampler({ engine: "vllm", url: proxy.url, model: "simulated" }) as TokenSampler;
  live.push(sampler);
  const capture: CaptureServer = await startCaptureServer({
    sampler,
    tokenizer,
    toolCallFormat: toolCallFormat("hermes"),
  });
  live.push(capture);
  return { capture, exchanges: proxy.exchanges, llm };
}

describe("agent capture", () => {
  it("a 3-turn OpenAI-style tool loop gives one trajectory whose ids, masks and logprobs are the server's", async () => {
    const { capture, exchanges } = await stack(tok);
    const replies = await agentLoop(capture.baseUrl("traj-1"));

    // the agent saw OpenAI replies: two tool calls parsed from the model's Hermes text, then the answer
    expect(replies.map((r) => r.choices[0]!.finish_reason)).toEqual(["tool_calls", "tool_calls", "stop"]);
    expect(replies[0]!.choices[0]!.message.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: "function",
        function: { name: "search__search", arguments: '{"query": "who wrote Hamlet 1"}' },
      },
    ]);
    expect(replies[2]!.choices[0]!.message.content).toBe("<answer>unknown</answer>");
    expect(replies.map((r) => r.usage.completion_tokens)).toEqual(exchanges.map((x) => x.ids.length));

    const [t, ...more] = capture.takeTrajectories("traj-1", {
      taskId: "hamlet",
      groupId: "g",
      sampleIndex: 0,
    });
    expect(more).toHaveLength(0);
    expect(exchanges).toHaveLength(3);
    expectMatchesServer(t!, exchanges);
    // sampled, observation, sampled, observation, sampled: the tool results (and template tokens) between
    expect(t!.turns.map((x) => x.kind)).toEqual([
      "sampled",
      "observation",
      "sampled",
      "observation",
      "sampled",
    ]);
    const firstObservation = t!.turns[1]!;
    expect(tok.decode(t!.response_ids.slice(firstObservation.start, firstObservation.end))).toContain(
      "no results for who wrote Hamlet 1",
    );
    // the observation tokens are the ones our own loop appends for the same tool results (its fixed-base delta)
    const delta = createObservationDelta(tok, { tools: [SEARCH_TOOL] as ChatTool[] });
    t!.turns
      .filter((x) => x.kind === "observation")
      .forEach((x, k) => {
        const own = delta([{ role: "tool", content: `no results for who wrote Hamlet ${k + 1}` }], {
          lastAssistantEndedWithEos: true,
        });
        expect(t!.response_ids.slice(x.start, x.end)).toEqual(own.ids);
      });
    expect(
      (t!.metadata!.capture as { requests: { prefix: string }[] }).requests.map((r) => r.prefix),
    ).toEqual(["start", "extends", "extends"]);
    expect(t!.logprobs_kind).toBe("raw");
    // the calls the agent got in the replies, each with the result it sent back, on the turn that made it
    expect(
      t!.tool_calls.map((c) => [c.name, c.arguments, c.result, c.turn, c.error_code, c.is_error]),
    ).toEqual(
      [1, 2].map((k, i) => [
        "search__search",
        JSON.parse(replies[i]!.choices[0]!.message.tool_calls![0]!.function.arguments),
        `no results for who wrote Hamlet ${k}`,
        2 * i,
        null,
        false,
      ]),
    );
    expect(t!.tool_calls.map((c) => c.arguments)).toEqual([
      { query: "who wrote Hamlet 1" },
      { query: "who wrote Hamlet 2" },
    ]);
  });

  it("a template that drops earlier assistant content is detected on the turn it happens and starts a new segment", async () => {
    const dropping = await qwen3Tokenizer({ chatTemplate: DROP_EARLIER_ASSISTANT });
    const { capture, exchanges } = await stack(dropping);
    await agentLoop(capture.baseUrl("traj-2"));
    expect(exchanges).toHaveLength(3);

    const session = capture.session("traj-2")!;
    // request 1 renders one assistant message (in full): it extends; request 2 renders two, and the first
    // has lost its content: the session records where the text left what the model saw
    expect(session.requests.map((r) => [r.prefix, r.segment])).toEqual([
      ["start", 0],
      ["extends", 0],
      ["diverged", 1],
    ]);
    const broken = session.requests[2]!;
    const previous = [...exchanges[1]!.promptIds, ...exchanges[1]!.ids];
    expect(broken.previous_tokens).toBe(previous.length);
    // the ids before the divergence are the ones the new prompt still repeats; the next one is not
    const at = broken.diverged_at_token!;
    expect(exchanges[2]!.promptIds.slice(0, at)).toEqual(previous.slice(0, at));
    expect(tok.decode(previous.slice(at))).toContain("who wrote Hamlet 1");
    expect(tok.decode(exchanges[2]!.promptIds.slice(at))).toContain("(earlier turn)");

    const trajectories = capture.takeTrajectories("traj-2", {
      taskId: "hamlet",
      groupId: "g",
      sampleIndex: 0,
    });
    expect(trajectories).toHaveLength(2);
    expectMatchesServer(trajectories[0]!, exchanges.slice(0, 2));
    expectMatchesServer(trajectories[1]!, exchanges.slice(2));
    // each record says plainly that its session diverged; the calls stay with the segment that made them
    for (const t of trajectories)
      expect((t.metadata!.capture as { divergences: number; segments: number }).divergences).toBe(1);
    expect(trajectories.map((t) => t.tool_calls.map((c) => [c.turn, c.result]))).toEqual([
      [
        [0, "no results for who wrote Hamlet 1"],
        [2, "no results for who wrote Hamlet 2"],
      ],
      [],
    ]);

    // a run summary counts it: `rlf rollout agent` keeps the last segment of each session
    await agentLoop(capture.baseUrl("traj-3"), { maxTurns: 1 });
    const clean = capture.takeTrajectories("traj-3", { taskId: "hamlet", groupId: "g", sampleIndex: 1 });
    expect(clean).toHaveLength(1);
    const summary = summarizeRollout([trajectories.at(-1)!, clean[0]!], { wallMs: 1 });
    expect(summary.capture).toEqual({ trajectories: 2, diverged: 1, diverged_requests: 1 });
    expect(formatSummary(summary)).toContain("2 agent trajectories · 1 diverged, at 1 requests");
  });

  it("Qwen3's own template keeps the reasoning of a tool chain (one segment) and drops it after a new user message (recorded)", async () => {
    const { capture, exchanges } = await stack(tok, { think: true });
    const replies = await agentLoop(capture.baseUrl("traj-4"), {
      followUp: "Thanks. And who wrote Macbeth?",
    });
    expect(replies).toHaveLength(4);
    // the reasoning reaches the agent in the content, as vLLM without a reasoning parser sends it
    expect(replies[0]!.choices[0]!.message.content).toMatch(/^<think>\nTurn 1\./);

    const session = capture.session("traj-4")!;
    expect(session.requests.map((r) => [r.prefix, r.segment])).toEqual([
      ["start", 0],
      ["extends", 0],
      ["extends", 0],
      ["diverged", 1],
    ]);
    // Qwen3 renders assistant turns before the last user message without their <think> block: the new
    // prompt leaves the model's tokens where the first turn's reasoning began
    const broken = session.requests[3]!;
    const previous = [...exchanges[2]!.promptIds, ...exchanges[2]!.ids];
    const at = broken.diverged_at_token!;
    expect(exchanges[3]!.promptIds.slice(0, at)).toEqual(previous.slice(0, at));
    expect(tok.decode(previous.slice(at)).startsWith("<think>\nTurn 1.")).toBe(true);

    const trajectories = capture.takeTrajectories("traj-4", {
      taskId: "hamlet",
      groupId: "g",
      sampleIndex: 0,
    });
    expect(trajectories).toHaveLength(2);
    expectMatchesServer(trajectories[0]!, exchanges.slice(0, 3));
    expectMatchesServer(trajectories[1]!, exchanges.slice(3));
  });

  it("/v1/completions captures a raw prompt that grows turn by turn into one trajectory", async () => {
    const { capture, exchanges } = await stack(tok);
    const url = `${capture.baseUrl("traj-5")}/completions`;
    let prompt = tok.renderChat([{ role: "user", content: "Question: who wrote Hamlet" }], {
      addGenerationPrompt: true,
    });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt, max_tokens: 200, seed: i }),
      });
      expect(res.status).toBe(200);
      const { choices } = (await res.json()) as { choices: { text: string }[] };
      prompt += `${choices[0]!.text}<|im_end|>\n<|im_start|>user\n<tool_response>\nnothing\n</tool_response><|im_end|>\n<|im_start|>assistant\n`;
    }
    const [t, ...more] = capture.takeTrajectories("traj-5", {
      taskId: "hamlet",
      groupId: "g",
      sampleIndex: 0,
    });
    expect(more).toHaveLength(0);
    expectMatchesServer(t!, exchanges);
    expect(t!.turns.map((x) => x.kind)).toEqual(["sampled", "observation", "sampled"]);
  });

  it("an agent that hangs up cancels the engine request and leaves nothing in the session", async () => {
    const { capture, llm } = await stack(tok, { turnMs: [10_000, 10_000] });
    const ac = new AbortController();
    const pending = fetch(`${capture.baseUrl("traj-6")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Question: who wrote Hamlet" }] }),
      signal: ac.signal,
    });
    await vi.waitFor(() => expect(llm.inFlight).toBe(1), { timeout: 5_000 });
    ac.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(llm.inFlight).toBe(0), { timeout: 5_000 });
    await vi.waitFor(() => expect(capture.session("traj-6")?.requests).toEqual([]), { timeout: 5_000 });
    expect(capture.takeTrajectories("traj-6", { taskId: "t", groupId: "g", sampleIndex: 0 })).toEqual([]);
  });

  it("a prompt past the engine's context length comes back as the engine's 400, and is not recorded", async () => {
    const { capture } = await stack(tok);
    const res = await fetch(`${capture.baseUrl("traj-7")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], max_tokens: 1_000_000 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/HTTP_ERROR/);
    expect(capture.session("traj-7")?.requests).toEqual([]);
  });

  it("refuses a streaming request with a 400 that names stream, and sends nothing to the server", async () => {
    const { capture, exchanges } = await stack(tok);
    const res = await fetch(`${capture.baseUrl("traj-3")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("stream");
    expect(exchanges).toHaveLength(0);
  });
});
