// Property tests for every codec: random text and mutated valid turns never make a parser throw or return
// a malformed ParsedTurn, and calls rendered in a format's own syntax parse back equal.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE } from "./malformed.ts";
import { toolCallFormat } from "./registry.ts";
import { firstAction, SEARCH_R1_ACTION } from "./search-r1.ts";
import type { MalformedCode, ParsedTurn, ToolCallFormat } from "./types.ts";

const RUNS = { numRuns: 2000 };
const FORMATS: ToolCallFormat[] = [
  toolCallFormat("hermes"),
  toolCallFormat("search-r1"),
  toolCallFormat("llama3"),
];
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
/** Text dense in Search-R1 tags and their pieces. */
const searchSoup = fc
  .array(
    fc.constantFrom(
      "<search>",
      "</search>",
      "<answer>",
      "</answer>",
      "<",
      ">",
      "/",
      "search",
      "answer",
      "x",
      "\n",
    ),
    {
      maxLength: 30,
    },
  )
  .map((parts) => parts.join(""));
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

/** Valid Hermes turns with what they must parse to. */
const hermesTurn = fc
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
    return { text, calls: calls.map((c) => ({ name: c.name, arguments: jsonRoundTrip(c.args) })), answer };
  });

const llamaTurn = fc
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
    calls: calls.map((c) => ({ name: c.name, arguments: jsonRoundTrip(c.args) })),
  }));

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
const searchTurn = fc
  .record({ think: prose, content: prose, tag: fc.constantFrom("search", "answer") })
  .map(({ think, content, tag }) => ({
    text: `<think>${think}</think>\n<${tag}> ${content} </${tag}>`,
    tag,
    content,
  }));
const anyValidTurn = fc.oneof(
  hermesTurn.map((t) => t.text),
  llamaTurn.map((t) => t.text),
  searchTurn.map((t) => t.text),
);

describe.each(FORMATS)("$name: robustness", (format) => {
  it("never throws and returns a well-formed turn on random text", () => {
    fc.assert(
      fc.property(randomText, (text) => expectWellFormed(text, format.parse(text))),
      RUNS,
    );
  });

  it("never throws and returns a well-formed turn on mutated valid turns", () => {
    fc.assert(
      fc.property(anyValidTurn, fc.array(mutation, { minLength: 1, maxLength: 4 }), (turn, ms) => {
        const text = mutate(turn, ms);
        expectWellFormed(text, format.parse(text));
      }),
      RUNS,
    );
  });
});

describe("round trips", () => {
  it("hermes: rendered calls (plain or double-encoded) and answers parse back equal, in order", () => {
    fc.assert(
      fc.property(hermesTurn, ({ text, calls, answer }) => {
        const parsed = toolCallFormat("hermes").parse(text);
        expect(parsed.malformed).toEqual([]);
        expect(parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(calls);
        expect(parsed.answer).toBe(answer?.trim());
      }),
      RUNS,
    );
  });

  it("llama3: rendered calls parse back equal, in order", () => {
    fc.assert(
      fc.property(llamaTurn, ({ text, calls }) => {
        const parsed = toolCallFormat("llama3").parse(text);
        expect(parsed.malformed).toEqual([]);
        expect(parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(calls);
      }),
      RUNS,
    );
  });

  it("search-r1: a rendered search or answer parses back to its content", () => {
    fc.assert(
      fc.property(searchTurn, fc.integer({ min: 1, max: 20 }), ({ text, tag, content }, topk) => {
        const parsed = toolCallFormat("search-r1", { topk }).parse(text);
        expect(parsed.malformed).toEqual([]);
        expect(parsed.end).toBe(text.length);
        if (tag === "search") {
          expect(parsed.calls).toMatchObject([
            { name: "search__search", arguments: { query: content.trim(), topk } },
          ]);
          expect(parsed.answer).toBeUndefined();
        } else {
          expect(parsed).toEqual({ calls: [], answer: content.trim(), malformed: [], end: text.length });
        }
      }),
      RUNS,
    );
  });

  it("search-r1: the linear action finder matches Search-R1's regex exactly", () => {
    fc.assert(
      fc.property(searchSoup, (text) => {
        const m = SEARCH_R1_ACTION.exec(text);
        const expected = m === null ? undefined : { raw: m[0], action: m[1], content: m[2] };
        expect(firstAction(text)).toEqual(expected);
      }),
      RUNS,
    );
  });
});
