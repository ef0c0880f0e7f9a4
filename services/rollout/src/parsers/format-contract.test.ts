// The contract every registered tool-call format keeps, run over every entry of the registry
// (`describe.each(TOOL_CALL_FORMAT_NAMES)`): its codec carries its registry name; calls rendered in its
// own syntax parse back equal (property-tested); broken call attempts come back as typed MalformedCalls;
// random text and mutated valid turns never make it throw nor return an ill-formed ParsedTurn; parsing is
// deterministic; observations keep every tool result's text and every failure's code.
// `CASES` is typed by the registry's names, so a format added there without its case here fails the typecheck.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE } from "./malformed.ts";
import {
  TOOL_CALL_FORMAT_NAMES,
  type ToolCallFormatName,
  type ToolCallFormatOptions,
  toolCallFormat,
} from "./registry.ts";
import type { MalformedCode, ObservationInput, ParsedTurn } from "./types.ts";

const RUNS = { numRuns: 2000 };
const CODES: ReadonlySet<MalformedCode> = new Set([
  "INVALID_JSON",
  "NOT_AN_OBJECT",
  "MISSING_NAME",
  "MISSING_ARGUMENTS",
  "ARGUMENTS_NOT_OBJECT",
  "UNCLOSED_TAG",
  "UNKNOWN_ACTION",
]);

/** Pieces that exercise every branch: tags of all formats, JSON punctuation, keys, whitespace. */
const FRAGMENTS = [
  "<tool_call>",
  "</tool_call>",
  "<think>",
  "</think>",
  "<answer>",
  "</answer>",
  "<search>",
  "</search>",
  "<|python_tag|>",
  "<|eom_id|>",
  "{",
  "}",
  "[",
  "]",
  '"',
  "'",
  "\\",
  ":",
  ",",
  ";",
  '"name"',
  '"arguments"',
  '"parameters"',
  '"a__b"',
  "{}",
  "null",
  "1",
  "x",
  " ",
  "\n",
];
const soup = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 3 })), {
  maxLength: 40,
});
const randomText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  soup.map((parts) => parts.join("")),
);

function expectWellFormed(text: string, turn: ParsedTurn): void {
  expect(Array.isArray(turn.calls) && Array.isArray(turn.malformed)).toBe(true);
  if (turn.answer !== undefined) expect(typeof turn.answer).toBe("string");
  if (turn.end !== undefined) expect(turn.end >= 0 && turn.end <= text.length).toBe(true);
  for (const call of turn.calls) {
    expect(typeof call.name === "string" && call.name.trim() !== "").toBe(true);
    expect(
      typeof call.arguments === "object" && call.arguments !== null && !Array.isArray(call.arguments),
    ).toBe(true);
    expect(text.includes(call.raw)).toBe(true);
  }
  for (const bad of turn.malformed) {
    expect(CODES.has(bad.code)).toBe(true);
    expect(bad.message.length > 0 && bad.message.length <= MAX_MESSAGE).toBe(true);
    expect(bad.message).not.toMatch(/[\r\n\u2028\u2029]/);
    expect(text.includes(bad.raw)).toBe(true);
  }
  const indices = [...turn.calls, ...turn.malformed].map((c) => c.index);
  expect(new Set(indices).size).toBe(indices.length);
  const callIndices = turn.calls.map((c) => c.index);
  expect(callIndices).toEqual([...callIndices].sort((a, b) => a - b));
}

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}__[a-z][a-z0-9_]{0,11}$/);
/** String pieces that tempt a parser to end a call early (a closing `</think>` is left out: see README). */
const trickyUnit = fc.oneof(
  fc.constantFrom(
    "</tool_call>",
    "<tool_call>",
    "<think>",
    "<answer>",
    "</answer>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    ";",
  ),
  fc.string({ minLength: 1, maxLength: 1, unit: "grapheme" }),
);
const args = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: trickyUnit }),
  { maxKeys: 4 },
);
const jsonRoundTrip = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
/** Free text that cannot open or close any tag (thinking, prose, answers). */
const prose = fc.string({ maxLength: 40 }).map((s) => s.replace(/[<>]/g, " "));

/** A turn written in a format's own syntax, the options to parse it with, and what it must parse to. */
interface RenderedTurn {
  text: string;
  opts: ToolCallFormatOptions;
  calls: { name: string; arguments: unknown }[];
  answer: string | undefined;
}

interface FormatCase {
  /** Valid turns as the model family writes them (calls and/or an answer). */
  turns: fc.Arbitrary<RenderedTurn>;
  /** Broken call attempts and the code each must be reported with. */
  malformed: readonly (readonly [text: string, code: MalformedCode])[];
}

const CASES: { readonly [N in ToolCallFormatName]: FormatCase } = {
  hermes: {
    turns: fc
      .record({
        think: fc.option(prose, { nil: undefined }),
        calls: fc.array(fc.record({ name, args, doubleEncoded: fc.boolean() }), { maxLength: 4 }),
        answer: fc.option(prose, { nil: undefined }),
      })
      .map(({ think, calls, answer }) => {
        const blocks = calls.map(
          (c) =>
            `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.doubleEncoded ? JSON.stringify(c.args) : c.args })}\n</tool_call>`,
        );
        const text =
          (think === undefined ? "" : `<think>\n${think}\n</think>\n\n`) +
          blocks.join("\n") +
          (answer === undefined ? "" : `\n<answer>${answer}</answer>`);
        return {
          text,
          opts: {},
          calls: calls.map((c) => ({ name: c.name, arguments: jsonRoundTrip(c.args) })),
          answer: answer?.trim(),
        };
      }),
    malformed: [
      ["<tool_call>\nnot json\n</tool_call>", "INVALID_JSON"],
      ["<tool_call>[1, 2]</tool_call>", "NOT_AN_OBJECT"],
      ['<tool_call>{"arguments": {}}</tool_call>', "MISSING_NAME"],
      ['<tool_call>{"name": "a__b"}</tool_call>', "MISSING_ARGUMENTS"],
      ['<tool_call>{"name": "a__b", "arguments": 3}</tool_call>', "ARGUMENTS_NOT_OBJECT"],
      ['<tool_call>{"name": "a__b", "arguments": {}', "UNCLOSED_TAG"],
    ],
  },
  "search-r1": {
    turns: fc
      .record({
        think: prose,
        content: prose,
        tag: fc.constantFrom("search", "answer"),
        topk: fc.integer({ min: 1, max: 20 }),
        searchTool: fc.option(name, { nil: undefined }),
      })
      .map(({ think, content, tag, topk, searchTool }) => ({
        text: `<think>${think}</think>\n<${tag}> ${content} </${tag}>`,
        opts: { topk, ...(searchTool !== undefined && { searchTool }) },
        calls:
          tag === "search"
            ? [{ name: searchTool ?? "search__search", arguments: { query: content.trim(), topk } }]
            : [],
        answer: tag === "answer" ? content.trim() : undefined,
      })),
    malformed: [
      ["<search> never closed", "UNKNOWN_ACTION"],
      ["just prose, no action", "UNKNOWN_ACTION"],
    ],
  },
  llama3: {
    turns: fc
      .record({
        tagged: fc.boolean(),
        calls: fc.array(fc.record({ name, args, key: fc.constantFrom("parameters", "arguments") }), {
          minLength: 1,
          maxLength: 3,
        }),
      })
      .map(({ tagged, calls }) => ({
        text:
          (tagged ? "<|python_tag|>" : "") +
          calls.map((c) => JSON.stringify({ name: c.name, [c.key]: c.args })).join("; ") +
          "<|eom_id|>",
        opts: {},
        calls: calls.map((c) => ({ name: c.name, arguments: jsonRoundTrip(c.args) })),
        answer: undefined,
      })),
    malformed: [
      ['<|python_tag|>brave_search.call(query="x")', "INVALID_JSON"],
      ['{"parameters": {}}', "MISSING_NAME"],
      ['{"name": "a__b"}', "MISSING_ARGUMENTS"],
      ['{"name": "a__b", "parameters": [1]}', "ARGUMENTS_NOT_OBJECT"],
    ],
  },
};

/** Valid turns of every format: a parser must survive its neighbours' syntax too. */
const anyValidTurn = fc.oneof(...TOOL_CALL_FORMAT_NAMES.map((n) => CASES[n].turns.map((t) => t.text)));

/** Inserts, deletes or duplicates characters and tags at random places. */
type Mutation =
  | { op: "insert"; at: number; piece: string }
  | { op: "delete" | "duplicate"; at: number; length: number };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), piece: fc.constantFrom(...FRAGMENTS) }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ op: fc.constant("duplicate" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 30 }) }),
);
function mutate(text: string, mutations: Mutation[]): string {
  let out = text;
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % (out.length + 1);
    if (m.op === "insert") out = out.slice(0, at) + m.piece + out.slice(at);
    else if (m.op === "delete") out = out.slice(0, at) + out.slice(at + m.length);
    else out = out.slice(0, at) + out.slice(at, at + m.length) + out.slice(at);
  }
  return out;
}

const OBSERVED: ObservationInput[] = [
  { kind: "result", name: "a__b", text: "RESULT-TEXT-1", isError: false },
  { kind: "result", name: "a__c", text: "TOOL-SAID-NO", isError: true },
  { kind: "failure", name: "a__d", code: "TIMEOUT", message: "deadline exceeded" },
];

describe.each(TOOL_CALL_FORMAT_NAMES)("tool-call format %s", (formatName) => {
  const testCase = CASES[formatName];
  const format = toolCallFormat(formatName);

  it("is built by the registry under its own name, with string stop sequences", () => {
    expect(format.name).toBe(formatName);
    expect(format.stopSequences.every((s) => typeof s === "string" && s !== "")).toBe(true);
  });

  it("parses calls and answers rendered in its own syntax back equal, in order", () => {
    fc.assert(
      fc.property(testCase.turns, ({ text, opts, calls, answer }) => {
        const parsed = toolCallFormat(formatName, opts).parse(text);
        expect(parsed.malformed).toEqual([]);
        expect(parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(calls);
        expect(parsed.calls.map((c) => c.index)).toEqual(calls.map((_, i) => i));
        expect(parsed.answer).toBe(answer);
        expectWellFormed(text, parsed);
      }),
      RUNS,
    );
  });

  it.each(testCase.malformed)("reports %j as a typed malformed call %s, not a call", (text, code) => {
    const parsed = format.parse(text);
    expect(parsed.calls).toEqual([]);
    expect(parsed.malformed.map((m) => m.code)).toEqual([code]);
    expectWellFormed(text, parsed);
  });

  it("never throws and returns a well-formed, deterministic turn on random text", () => {
    fc.assert(
      fc.property(randomText, (text) => {
        const parsed = format.parse(text);
        expectWellFormed(text, parsed);
        expect(format.parse(text)).toEqual(parsed);
      }),
      RUNS,
    );
  });

  it("never throws and returns a well-formed turn on mutated valid turns (of any format)", () => {
    fc.assert(
      fc.property(anyValidTurn, fc.array(mutation, { minLength: 1, maxLength: 4 }), (turn, ms) => {
        const text = mutate(turn, ms);
        expectWellFormed(text, format.parse(text));
      }),
      RUNS,
    );
  });

  it("renders observations that keep each result's text and each failure's code, in order", () => {
    const malformed = format.parse(testCase.malformed[0]![0]).malformed[0]!;
    const inputs: ObservationInput[] = [...OBSERVED, { kind: "malformed", malformed }];
    const observation = format.renderObservation(inputs);
    const rendered =
      observation.kind === "text" ? observation.text : observation.messages.map((m) => m.content).join("\n");
    const positions = ["RESULT-TEXT-1", "TOOL-SAID-NO", "TIMEOUT"].map((s) => rendered.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    if (observation.kind === "messages") {
      expect(observation.messages.map((m) => [m.role, m.name])).toEqual([
        ["tool", "a__b"],
        ["tool", "a__c"],
        ["tool", "a__d"],
        ["tool", ""],
      ]);
    }
    expect(format.renderObservation([])).toEqual(
      observation.kind === "text" ? { kind: "text", text: "" } : { kind: "messages", messages: [] },
    );
  });
});
