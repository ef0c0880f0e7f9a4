// The loop's records are the old loop's: a fixed set of scripted trajectories (tool calls, malformed
// calls, truncation, user turns scripted and simulated, cancellation, episodes and their snapshots,
// Search-R1's text observations) run through runTrajectory, and everything they produce — the
// trajectory record, the loop result the rewards read, every request to the sampler, the tools, the
// user simulator and the episode RPCs, and the spans with their attributes — is compared with
// __fixtures__/old-loop-records.json.
//
// How the fixture was produced: this file and __fixtures__/scripted-loop.ts were committed on top of
// main at 70662cc, before the loop was split into phases, and run there once with
// `RLF_WRITE_LOOP_RECORDS=1 CI=true npx vitest run services/rollout/src/rollout/loop-records.test.ts`
// (which writes the fixture instead of comparing). Timings are the one thing that varies from run to
// run: their names are kept, their values replaced by "ms". Prompts sent to the sampler are kept as
// their length and a SHA-256 of their ids.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Task } from "@rlfactory/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayCallError, type ToolCallInput } from "../gateway-tools.ts";
import { InferenceError } from "../inference/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import {
  ANSWER,
  call,
  MAX_TOKENS,
  ok,
  PROSE,
  RAMBLE,
  runScript,
  SCRIPTED,
  type Script,
  SIMULATED,
  TASK,
} from "./__fixtures__/scripted-loop.ts";
import { EpisodeError } from "./episodes.ts";
import { UserSimulatorError } from "./user-simulator.ts";

const FIXTURE = new URL("./__fixtures__/old-loop-records.json", import.meta.url);

const calc = (expression: string) =>
  `<tool_call>\n{"name": "calculator__calculate", "arguments": {"expression": "${expression}"}}\n</tool_call>`;
const bank = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** Three user turns; the tools offered change at each later one. */
const TOOLS_CHANGING: Task = {
  ...TASK,
  id: "eiffel-tools-changing",
  tools: ["search__search"],
  turns: [
    { content: "Now compute 324 * 3, the tower's height times three.", tools: ["calculator__calculate"] },
    { content: "Thanks. Anything else?", tools: [] },
  ],
};
/** A task in an episode of the `search` server, a model-visible alias for a calculator tool. */
const IN_EPISODE: Task = {
  ...SCRIPTED,
  id: "eiffel-in-episode",
  environment: { server: "search", config: { seed: 1 } },
  tool_aliases: { calc: "calculator__calculate" },
  tools: ["search__search", "calc"],
};
const EPISODE_STATE = { balance: 100, history: ["open"] };

const SCRIPTS: Record<string, Script> = {
  "answer at once, a seed and a weight version": {
    sampler: [{ text: ANSWER, weightVersion: "12" }],
    seed: 7,
  },
  "two calls, a gateway code and a tool error, then the answer": {
    sampler: [{ text: `${call("a")}\n${call("b")}`, weightVersion: 3 }, { text: ANSWER }],
    tools: [
      {
        outcomes: ([a, b]) => [
          { ...ok([a!])[0]!, errorCode: "TIMEOUT", text: "search__search: no answer within 400 ms" },
          { ...ok([b!])[0]!, isError: true, text: "rate limit of the search API" },
        ],
      },
    ],
    seed: 100,
  },
  "valid, malformed and valid calls interleaved: observations in the turn's order": {
    sampler: [
      { text: `${call("first")}\n<tool_call>\n{name: oops\n</tool_call>\n${calc("1 + 1")}` },
      { text: ANSWER },
    ],
  },
  "no action, nudged": { sampler: [{ text: PROSE }, { text: ANSWER }], limits: { onNoAction: "nudge" } },
  "no action, ended": { sampler: [{ text: PROSE }] },
  "no action cut by the per-turn cap": { sampler: [{ text: RAMBLE }] },
  "max_turns with tools asked": {
    sampler: [{ text: call("one") }, { text: call("two") }],
    limits: { maxTurns: 2 },
  },
  "the prompt does not fit": { sampler: [], room: 0 },
  "generation reaches the context budget": { sampler: [{ text: RAMBLE }], room: 20 },
  "the observation does not fit": {
    sampler: [{ text: call("long") }],
    tools: [{ outcomes: (calls) => ok(calls).map((o) => ({ ...o, text: "lorem ipsum ".repeat(150) })) }],
    room: MAX_TOKENS + 100,
  },
  "a tool body cut to its token budget": {
    sampler: [{ text: call("long") }, { text: ANSWER }],
    tools: [{ outcomes: (calls) => ok(calls).map((o) => ({ ...o, text: "lorem ipsum ".repeat(150) })) }],
    limits: { maxToolResponseTokens: 16 },
  },
  "cancelled before": { sampler: [], cancelledBefore: true },
  "cancelled while generating": { sampler: [{ text: call("x") }, { hang: true }] },
  "cancelled while the tools run": { sampler: [{ text: call("x") }], tools: [{ hang: true }] },
  "the engine aborted": { sampler: [{ text: "Let me think", finish: "abort" }] },
  "inference unavailable": {
    sampler: [{ text: call("x") }, { error: new InferenceError("UNAVAILABLE", "connect ECONNREFUSED") }],
  },
  "a sampler error of another kind": { sampler: [{ error: new Error("socket hang up") }] },
  "no tokens": { sampler: [{ empty: true }] },
  "the gateway unreachable": {
    sampler: [{ text: call("x") }],
    tools: [{ error: new GatewayCallError("UNAVAILABLE", "gateway CallTools failed: connect ECONNREFUSED") }],
  },
  "a bug below the loop": {
    sampler: [{ text: call("x") }],
    tools: [{ error: new TypeError("results is not iterable") }],
  },
  "scripted user turns": {
    task: SCRIPTED,
    sampler: [{ text: "It is in Paris." }, { text: "In France." }, { text: ANSWER }],
  },
  "scripted user turns between tool calls": {
    task: SCRIPTED,
    sampler: [
      { text: call("Eiffel Tower") },
      { text: "<answer>Paris</answer>" },
      { text: call("Paris country") },
      { text: "France." },
      { text: ANSWER },
    ],
    limits: { maxTurns: 6 },
  },
  "an answer with a stray malformed call ends a user turn": {
    task: SCRIPTED,
    sampler: [
      { text: "<answer>Paris</answer>\n<tool_call>\n{oops\n</tool_call>" },
      { text: "France." },
      { text: ANSWER },
    ],
  },
  "the script used up": {
    task: SCRIPTED,
    sampler: [{ text: "Paris." }, { text: "France." }, { text: PROSE }],
  },
  "max_turns on a reply": {
    task: SCRIPTED,
    sampler: [{ text: "Paris." }, { text: "France." }],
    limits: { maxTurns: 2 },
  },
  "a reply cut by the context budget while user turns remain": {
    task: SCRIPTED,
    sampler: [{ text: RAMBLE }],
    room: 20,
  },
  "a user turn that does not fit": {
    task: { ...SCRIPTED, turns: [{ content: "tell me more ".repeat(200) }] },
    sampler: [{ text: "Paris." }],
    room: 120,
  },
  "tools changing, a call not offered, no tools at the end": {
    task: TOOLS_CHANGING,
    sampler: [
      { text: "It is in Paris." },
      { text: call("Eiffel Tower height") },
      { text: calc("324 * 3") },
      { text: "It is 972." },
      { text: calc("1 + 1") },
      { text: ANSWER },
    ],
    limits: { maxTurns: 8 },
  },
  "the user simulator: a message, then stop": {
    task: SIMULATED,
    sampler: [
      { text: call("Eiffel Tower") },
      { text: "<think>easy</think>It is in Paris." },
      { text: "In France." },
    ],
    user: [{ message: "Which country is that in?" }, { stop: true }],
  },
  "the user simulator down": {
    task: SIMULATED,
    sampler: [{ text: "It is in Paris." }],
    user: [{ error: new UserSimulatorError("UNAVAILABLE", "connect ECONNREFUSED 127.0.0.1:9") }],
  },
  "the user simulator cancelled": {
    task: SIMULATED,
    sampler: [{ text: "It is in Paris." }],
    user: [{ error: new UserSimulatorError("CANCELLED", "cancelled") }],
  },
  "an episode: calls carry its id, a snapshot per user turn, the final state": {
    task: IN_EPISODE,
    sampler: [
      { text: `${bank("search__search", { query: "tower" })}\n${bank("calc", { expression: "2 * 2" })}` },
      { text: "It is in Paris." },
      { text: "In France." },
      { text: ANSWER },
    ],
    episode: { id: "ep1.0", snapshots: [EPISODE_STATE, { big: "x".repeat(400) }], end: { done: true } },
    maxSnapshotBytes: 200,
    limits: { maxTurns: 6 },
  },
  "an episode lost": {
    task: { ...TASK, environment: { server: "search", config: {} } },
    sampler: [{ text: call("x") }],
    tools: [
      {
        outcomes: (calls: readonly ToolCallInput[]) =>
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
    episode: { id: "ep1.1", end: EPISODE_STATE },
  },
  "an episode that did not start": {
    task: IN_EPISODE,
    sampler: [],
    episode: { id: new EpisodeError("UNAVAILABLE", "StartEpisode: connect ECONNREFUSED") },
  },
  "an episode snapshot failing": {
    task: IN_EPISODE,
    sampler: [{ text: "Paris." }],
    episode: { id: "ep1.2", snapshots: [new EpisodeError("EPISODE_NOT_FOUND", "SnapshotEpisode: no ep1.2")] },
  },
  "an episode end failing after an answer": {
    task: { ...TASK, environment: { server: "search", config: {} } },
    sampler: [{ text: ANSWER }],
    episode: { id: "ep1.3", end: new Error("boom") },
  },
  "an episode end failing after a cancel": {
    task: { ...TASK, environment: { server: "search", config: {} } },
    sampler: [],
    cancelledBefore: true,
    episode: { id: "ep1.4", end: new EpisodeError("EPISODE_LOST", "EndEpisode: gone") },
  },
  "search-r1: text observations": {
    format: "search-r1",
    sampler: [
      { text: "<search>Eiffel Tower city</search>" },
      { text: "nothing useful" },
      { text: "<answer>Paris</answer>" },
    ],
    limits: { onNoAction: "nudge" },
  },
};

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager();
let tokenizer: ModelTokenizer;
beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  tokenizer = await qwen3Tokenizer();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const sha256 = (ids: readonly number[]) => createHash("sha256").update(JSON.stringify(ids)).digest("hex");

/** Everything one script produced, as plain JSON (timing values masked). */
async function produced(script: Script): Promise<unknown> {
  exporter.reset();
  const { h, loop, t } = await runScript(script, tokenizer);
  const spans = exporter.getFinishedSpans();
  const ids = spans.map((s) => s.spanContext().spanId);
  // The record names the trace its spans are in (metadata.trace_id, random per run): checked here,
  // then left out of the pinned record.
  const { trace_id: traceId, ...metadata } = (t.metadata ?? {}) as Record<string, unknown>;
  expect(spans.length).toBeGreaterThan(0);
  for (const s of spans) expect(s.spanContext().traceId).toBe(traceId);
  return {
    record: {
      ...t,
      ...(t.metadata && { metadata }),
      timings: Object.fromEntries(Object.keys(t.timings).map((k) => [k, "ms"])),
    },
    loop: {
      sampledTexts: loop.sampledTexts,
      answer: loop.answer,
      malformedTurns: loop.malformedTurns,
      sampledTurnMalformed: loop.sampledTurnMalformed,
      status: loop.status,
      statusReason: loop.statusReason,
    },
    generate: h.requests.map((r) => ({
      prompt: { length: r.promptLength, sha256: sha256(r.promptIds) },
      sampling: r.sampling,
      sessionId: r.sessionId,
    })),
    tools: h.toolTurns.map((calls, i) => ({ calls, options: h.toolOptions[i] })),
    user: h.userRequests,
    episode: h.episodeCalls,
    // in the order they ended; parent: the index of the parent span in this list
    spans: spans.map((s) => ({
      name: s.name,
      parent: s.parentSpanContext === undefined ? null : ids.indexOf(s.parentSpanContext.spanId),
      attributes: s.attributes,
      status: s.status,
      events: s.events.map((e) => ({
        name: e.name,
        attributes: Object.fromEntries(
          Object.entries(e.attributes ?? {}).filter(([k]) => k !== "exception.stacktrace"),
        ),
      })),
    })),
  };
}

describe("the loop's records", () => {
  it("are, script by script, those the loop before the phases produced", async () => {
    const got: Record<string, unknown> = {};
    for (const [name, script] of Object.entries(SCRIPTS)) got[name] = await produced(script);
    // one JSON round trip: the fixture holds no undefined
    const actual = JSON.parse(JSON.stringify(got)) as Record<string, unknown>;
    if (process.env.RLF_WRITE_LOOP_RECORDS === "1") {
      writeFileSync(FIXTURE, `${JSON.stringify(actual, null, 2)}\n`);
      return;
    }
    const expected = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, unknown>;
    expect(Object.keys(actual)).toEqual(Object.keys(expected));
    for (const name of Object.keys(expected)) expect(actual[name], name).toEqual(expected[name]);
  });
});
