// The scripted policies, driven the way the rollout loop drives a model: prompts rendered with Qwen3's
// chat template (or Search-R1's text layout), every turn parsed with the trainer's own codecs.

import type { ChatMessage, ObservationInput, ParsedTurn } from "@rlfactory/rollout";
import { type ModelTokenizer, qwen3Tokenizer, toolCallFormat } from "@rlfactory/rollout";
import { beforeAll, describe, expect, it } from "vitest";
import { type PolicyOptionsInput, policyOptionsSchema } from "./policies/policy.ts";
import { SIMULATED_POLICY_NAMES, simulatedPolicy } from "./policies/registry.ts";
import { createSimulator, type Simulation } from "./simulator.ts";

let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});

const hermes = toolCallFormat("hermes");
const searchR1 = toolCallFormat("search-r1");
const QUESTION = "which city is the capital of France";
const USER: ChatMessage = { role: "user", content: `Answer the question. Question: ${QUESTION}\n` };

/** Search results the way the search tool renders them (Search-R1 `Doc i(Title: "T") text`). */
const docs = (...titles: string[]) =>
  titles.map((t, i) => `Doc ${i + 1}(Title: "${t}") About ${t}.\n`).join("");

interface Sampling {
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  stop?: string[];
}

function sample(
  policy: string,
  promptIds: number[],
  options: PolicyOptionsInput = {},
  s: Sampling = {},
): Simulation {
  const sim = createSimulator({
    tokenizer: tok,
    policy: simulatedPolicy(policy),
    policyOptions: policyOptionsSchema.parse(options),
  });
  return sim.run(
    {
      promptIds,
      temperature: s.temperature ?? 0,
      top_p: 1,
      max_tokens: s.maxTokens ?? 1024,
      stop: s.stop ?? [],
      limits: { stopTokenIds: [], includeStop: true, skipSpecialTokens: true, stopStringWinsAtCap: true },
    },
    s.seed ?? 0,
  );
}

/** A Hermes episode: each turn parsed; `observe` says what the tools answered to the turn's attempts. */
function hermesEpisode(
  policy: string,
  turns: number,
  observe: (parsed: ParsedTurn, turn: number) => ObservationInput[],
  options: PolicyOptionsInput = {},
  s: Sampling = {},
): ParsedTurn[] {
  const messages: ChatMessage[] = [USER];
  const out: ParsedTurn[] = [];
  for (let t = 1; t <= turns; t++) {
    const ids = tok.encode(tok.renderChat(messages, { addGenerationPrompt: true }));
    const sim = sample(policy, ids, options, s);
    const parsed = hermes.parse(sim.text);
    out.push(parsed);
    if (parsed.answer !== undefined) break;
    messages.push({ role: "assistant", content: sim.text });
    const obs = hermes.renderObservation(observe(parsed, t));
    if (obs.kind !== "messages") throw new Error("hermes renders messages");
    messages.push(...obs.messages.map((m) => ({ ...m })));
  }
  return out;
}

const results =
  (...texts: string[]) =>
  (parsed: ParsedTurn): ObservationInput[] =>
    parsed.calls.map((c, i) => ({
      kind: "result",
      name: c.name,
      text: texts[i] ?? texts[0]!,
      isError: false,
    }));

it("lists the ten policies", () => {
  expect([...SIMULATED_POLICY_NAMES].sort()).toEqual(
    [
      "converse",
      "keep-searching",
      "malformed",
      "parallel-calls",
      "ramble",
      "replay",
      "research",
      "search-r1",
      "search-then-answer",
      "solve",
    ].sort(),
  );
});

describe("search-then-answer (Hermes)", () => {
  it("searches the question, then answers with the top passage's title", () => {
    const turns = hermesEpisode("search-then-answer", 3, results(docs("Paris", "Lyon")));
    expect(turns).toHaveLength(2);
    expect(turns[0]!.malformed).toEqual([]);
    expect(turns[0]!.calls.map((c) => [c.name, c.arguments])).toEqual([
      ["search__search", { query: QUESTION }],
    ]);
    expect(turns[1]).toMatchObject({ calls: [], answer: "Paris" });
  });

  it("after a tool error retries once with a shorter query, then answers 'unknown'", () => {
    const failure = (parsed: ParsedTurn): ObservationInput[] =>
      parsed.calls.map((c) => ({
        kind: "failure",
        name: c.name,
        code: "TIMEOUT",
        message: "deadline exceeded",
      }));
    const turns = hermesEpisode("search-then-answer", 5, failure, { tool: "wiki__lookup" });
    expect(turns.map((t) => t.calls.map((c) => c.name))).toEqual([["wiki__lookup"], ["wiki__lookup"], []]);
    const retry = turns[1]!.calls[0]!.arguments.query as string;
    expect(QUESTION.startsWith(retry) && retry.length < QUESTION.length).toBe(true);
    expect(turns[2]!.answer).toBe("unknown");
  });

  it("greedy decoding always takes the top passage; sampling groups disagree across seeds", () => {
    const passages = docs("Paris", "Lyon", "Marseille", "Nice");
    const answerOf = (s: Sampling) =>
      hermesEpisode("search-then-answer", 2, results(passages), {}, s)[1]!.answer;
    const seeds = Array.from({ length: 24 }, (_, i) => i);
    expect(new Set(seeds.map((seed) => answerOf({ temperature: 0, seed })))).toEqual(new Set(["Paris"]));
    const sampled = seeds.map((seed) => answerOf({ temperature: 1, seed }));
    expect(sampled.filter((a) => a === "Paris").length).toBeGreaterThan(seeds.length / 2);
    expect(new Set(sampled).size).toBeGreaterThan(1);
    // same seed, same request: same answer
    expect(seeds.map((seed) => answerOf({ temperature: 1, seed }))).toEqual(sampled);
  });

  it("--think opens every turn with a closed think block the parser skips", () => {
    const messages: ChatMessage[] = [USER];
    const first = sample(
      "search-then-answer",
      tok.encode(tok.renderChat(messages, { addGenerationPrompt: true })),
      {
        think: true,
      },
    );
    expect(first.text).toMatch(/^<think>\n[^<]*\n<\/think>\n\n<tool_call>/);
    expect(hermes.parse(first.text).calls).toHaveLength(1);
  });
});

describe("search-r1", () => {
  it("writes <search>, reads the <information> appended to its turn, answers", () => {
    const stop = [...searchR1.stopSequences];
    let ids = tok.encode(tok.renderChat([USER], { addGenerationPrompt: true }));
    const first = sample("search-r1", ids, {}, { stop });
    const parsed = searchR1.parse(first.text);
    expect(parsed.calls.map((c) => [c.name, c.arguments.query])).toEqual([["search__search", QUESTION]]);
    expect(first.finishReason).toBe("stop");
    const obs = searchR1.renderObservation([
      { kind: "result", name: "search__search", text: docs("Paris"), isError: false },
    ]);
    if (obs.kind !== "text") throw new Error("search-r1 renders text");
    ids = [...ids, ...first.ids, ...tok.encode(obs.text)];
    const second = sample("search-r1", ids, {}, { stop });
    expect(searchR1.parse(second.text)).toMatchObject({ calls: [], answer: "Paris" });
    expect(second.matched).toBe("</answer>");
  });
});

describe("parallel-calls", () => {
  it("writes K distinct calls per turn for N turns, then answers", () => {
    const turns = hermesEpisode("parallel-calls", 5, results(docs("Paris")), {
      calls: 3,
      turns: 2,
      tool: "t__x",
    });
    expect(turns).toHaveLength(3);
    const queries = turns.slice(0, 2).flatMap((t) => t.calls.map((c) => c.arguments.query));
    expect(turns.slice(0, 2).map((t) => t.calls.length)).toEqual([3, 3]);
    expect(new Set(queries).size).toBe(6);
    expect(turns.every((t) => t.malformed.length === 0)).toBe(true);
    expect(turns[2]!.answer).toBe("Paris");
  });
});

describe("malformed", () => {
  it("turn 1 is all malformed attempts, turn 2 a valid call, turn 3 the answer", () => {
    const observe = (parsed: ParsedTurn): ObservationInput[] => [
      ...parsed.malformed.map((m) => ({ kind: "malformed" as const, malformed: m })),
      ...results(docs("Paris"))(parsed),
    ];
    const turns = hermesEpisode("malformed", 5, observe);
    expect(turns[0]!.calls).toEqual([]);
    expect(turns[0]!.malformed.map((m) => m.code)).toEqual(["INVALID_JSON", "MISSING_NAME", "UNCLOSED_TAG"]);
    expect(turns[1]).toMatchObject({
      malformed: [],
      calls: [{ name: "search__search", arguments: { query: QUESTION } }],
    });
    expect(turns[2]!.answer).toBe("Paris");
  });
});

describe("keep-searching", () => {
  it("never answers and never repeats a query", () => {
    const turns = hermesEpisode("keep-searching", 6, results(docs("Paris")));
    expect(turns).toHaveLength(6);
    expect(turns.every((t) => t.answer === undefined && t.calls.length === 1)).toBe(true);
    expect(new Set(turns.map((t) => t.calls[0]!.arguments.query)).size).toBe(6);
  });
});

describe("ramble", () => {
  it("runs into max_tokens: finish 'length', no EOS, no call, no answer", () => {
    const sim = sample(
      "ramble",
      tok.encode(tok.renderChat([USER], { addGenerationPrompt: true })),
      {},
      { maxTokens: 300 },
    );
    expect(sim.finishReason).toBe("length");
    expect(sim.ids).toHaveLength(300);
    expect(sim.ids.some((id) => tok.eosTokenIds.includes(id))).toBe(false);
    const parsed = hermes.parse(sim.text);
    expect(parsed.calls).toEqual([]);
    expect(parsed.answer).toBeUndefined();
  });
});

describe("converse (Hermes, multi-turn)", () => {
  it("replies to each user message, calls --tool once for `call:`, answers `answer:`", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Hello there." }];
    const turn = () =>
      sample("converse", tok.encode(tok.renderChat(messages, { addGenerationPrompt: true })), {
        tool: "calculator__calculate",
      }).text;
    const first = turn();
    expect(first).toBe("You said: Hello there.");
    messages.push(
      { role: "assistant", content: first },
      { role: "user", content: 'Please call: {"expression": "2 + 2"}' },
    );
    const second = turn();
    expect(hermes.parse(second).calls).toMatchObject([
      { name: "calculator__calculate", arguments: { expression: "2 + 2" } },
    ]);
    messages.push({ role: "assistant", content: second }, { role: "tool", content: "4" });
    expect(turn()).toBe("Result: 4");
    messages.push({ role: "assistant", content: "Result: 4" }, { role: "user", content: "answer: four" });
    expect(hermes.parse(turn()).answer).toBe("four");
    messages.push(
      { role: "assistant", content: "<answer>four</answer>" },
      { role: "user", content: 'Now call writer__summarise: {"text": "abc"}' },
    );
    expect(hermes.parse(turn()).calls).toMatchObject([
      { name: "writer__summarise", arguments: { text: "abc" } },
    ]);
  });
});

describe("research (the research agent's sub-agent)", () => {
  const PASSAGES =
    'Doc 1(Title: "Paris") Paris is the capital of France.\nDoc 2(Title: "Lyon") Lyon is a city.';
  const turn = (messages: ChatMessage[], options: Record<string, string> = {}) =>
    sample("research", tok.encode(tok.renderChat(messages, { addGenerationPrompt: true })), options).text;

  it("searches, summarises with --summarise, then answers with the summary and numbered sources", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Question: capital of France" }];
    const opts = { tool: "search__search", summarise: "writer__summarise" };
    const first = turn(messages, opts);
    expect(hermes.parse(first).calls).toMatchObject([
      { name: "search__search", arguments: { query: "capital of France" } },
    ]);
    messages.push({ role: "assistant", content: first }, { role: "tool", content: PASSAGES });
    const second = turn(messages, opts);
    expect(hermes.parse(second).calls).toMatchObject([
      { name: "writer__summarise", arguments: { text: "Paris is the capital of France. Lyon is a city." } },
    ]);
    messages.push({ role: "assistant", content: second }, { role: "tool", content: "Paris is the capital." });
    expect(turn(messages, opts)).toBe('Paris is the capital.\n\nSources:\n[1] "Paris"\n[2] "Lyon"');
  });

  it("without --summarise quotes the top passage; without passages says so", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Question: capital of France" }];
    const first = turn(messages);
    messages.push({ role: "assistant", content: first }, { role: "tool", content: PASSAGES });
    expect(turn(messages)).toBe('Paris is the capital of France.\n\nSources:\n[1] "Paris"\n[2] "Lyon"');
    messages.splice(2, 1, { role: "tool", content: "error: search failed" });
    expect(turn(messages)).toBe("No sources found.");
  });
});
