import type { ChatMessage } from "@rlfactory/contracts";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type ModelTokenizer, qwen3Tokenizer } from "./model-tokenizer.ts";
import { createObservationDelta, OBSERVATION_PIECE_CHARS } from "./observation-delta.ts";
import { truncateToTokens } from "./truncate-to-tokens.ts";

let tok: ModelTokenizer;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
});

const tools = [
  {
    type: "function" as const,
    function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" } } } },
  },
];
const OPEN = "<|im_start|>user\n<tool_response>\n";
const CLOSE = "\n</tool_response><|im_end|>\n<|im_start|>assistant\n";

describe("observationDelta (fixed base, Qwen3)", () => {
  it("after <|im_end|>, starts with the unsampled \\n and wraps parallel results in one user turn", () => {
    const delta = createObservationDelta(tok, { tools });
    const d = delta(
      [
        { role: "tool", content: "result A" },
        { role: "tool", content: "result B" },
      ],
      { lastAssistantEndedWithEos: true },
    );
    expect(d.text).toBe(`\n${OPEN}result A\n</tool_response>\n<tool_response>\nresult B${CLOSE}`);
    expect(d.ids).toEqual(tok.encode(d.text));
    expect(tok.tokenText(d.ids[0]!)).toBe("Ċ"); // the "\n" the model never sampled
    expect(d.ids.filter((id) => id === tok.tokenId("<tool_response>"))).toHaveLength(2);
    expect(d.bodies.map((b) => b.truncated)).toEqual([false, false]);
  });

  it("closes the turn itself when generation stopped without <|im_end|>", () => {
    const d = createObservationDelta(tok)([{ role: "tool", content: "r" }], {
      lastAssistantEndedWithEos: false,
    });
    expect(d.text).toBe(`<|im_end|>\n${OPEN}r${CLOSE}`);
    expect(d.ids[0]).toBe(tok.tokenId("<|im_end|>"));
  });

  it("includes the empty think block when thinking is disabled", () => {
    const d = createObservationDelta(tok, { enableThinking: false })([{ role: "tool", content: "r" }], {
      lastAssistantEndedWithEos: true,
    });
    expect(d.text).toBe(`\n${OPEN}r${CLOSE}<think>\n\n</think>\n\n`);
    expect(d.ids.slice(-4).map((id) => tok.tokenText(id))).toEqual(["<think>", "ĊĊ", "</think>", "ĊĊ"]);
  });

  it("handles a new user message too (the default base has no user turn)", () => {
    const d = createObservationDelta(tok)([{ role: "user", content: "And then?" }], {
      lastAssistantEndedWithEos: true,
    });
    expect(d.text).toBe("\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n");
  });

  it("refuses a base the template does not extend append-only", () => {
    // With a user turn in the base, Qwen3 renders the base's last assistant turn with an empty
    // <think> block, and drops it once a tool result follows: the base is no longer a prefix.
    const delta = createObservationDelta(tok, {
      base: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
    });
    expect(() => delta([{ role: "tool", content: "r" }], { lastAssistantEndedWithEos: true })).toThrow(
      /not append-only/,
    );
  });

  it("truncates each body to its budget, keeps the wrapper whole and says how much was cut", () => {
    const long = Array.from({ length: 600 }, (_, i) => `line ${i}: some retrieved text`).join("\n");
    const d = createObservationDelta(tok)(
      [
        { role: "tool", content: long },
        { role: "tool", content: "short" },
      ],
      { lastAssistantEndedWithEos: true, maxBodyTokens: 50 },
    );
    expect(d.text.startsWith(`\n${OPEN}line 0: some retrieved text`)).toBe(true);
    expect(d.text.endsWith(`\n</tool_response>\n<tool_response>\nshort${CLOSE}`)).toBe(true);
    const [first, second] = d.bodies;
    expect(first!.truncated).toBe(true);
    expect(first!.originalTokens).toBe(tok.encode(long).length);
    expect(first!.tokens).toBeLessThanOrEqual(50);
    expect(second).toEqual({ originalTokens: 1, tokens: 1, truncated: false });
    const omitted = Number(/truncated: (\d+) tokens omitted/.exec(d.text)?.[1]);
    const body = d.text.slice(`\n${OPEN}`.length, d.text.indexOf("\n[... truncated"));
    expect(long.startsWith(body)).toBe(true);
    expect(omitted).toBe(first!.originalTokens - tok.encode(body).length);
  });

  it("never cuts inside a UTF-8 character, and rejects budgets below the marker", () => {
    const text = "日本語のテキスト🙂🙃 ".repeat(40);
    fc.assert(
      fc.property(fc.integer({ min: 12, max: 80 }), (budget) => {
        const t = truncateToTokens(tok, text, budget);
        expect(t.truncated).toBe(true);
        expect(t.tokens).toBeLessThanOrEqual(budget);
        expect(t.text).not.toContain("\uFFFD");
        expect(text.startsWith(t.text.slice(0, t.text.indexOf("\n[... truncated")))).toBe(true);
      }),
      { numRuns: 30 },
    );
    expect(() => truncateToTokens(tok, text, 3)).toThrow(/smaller than the truncation marker/);
    expect(truncateToTokens(tok, "fits", 3)).toEqual({
      text: "fits",
      originalTokens: 1,
      tokens: 1,
      truncated: false,
    });
  });

  it("is the full template render for any contents (its render cached per message shape)", async () => {
    // the cache must give what rendering base + messages every turn gives; checked against the template
    // itself, uncached, through a tokenizer whose template is the same text (a fresh object)
    const full = createObservationDelta(tok, { tools });
    const base: ChatMessage[] = [
      { role: "system", content: "BASE-SYSTEM" },
      { role: "assistant", content: "BASE-ASSISTANT-REPLY" },
    ];
    const render = (m: readonly ChatMessage[], gen: boolean) =>
      tok.renderChat(m, { addGenerationPrompt: gen, tools });
    const baseText = render(base, false);
    const reference = (messages: readonly ChatMessage[], eos: boolean) =>
      (eos ? "\n" : "<|im_end|>\n") + render([...base, ...messages], true).slice(baseText.length);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            role: fc.constantFrom("tool" as const, "user" as const),
            content: fc.oneof(fc.string(), fc.constantFrom(" x ", "<tool_response>a</tool_response>", "")),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        (messages, eos) => {
          expect(full(messages, { lastAssistantEndedWithEos: eos }).text).toBe(reference(messages, eos));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("renders every turn in full when the template changes contents (here: trims them)", async () => {
    const trimming = await qwen3Tokenizer({
      chatTemplate:
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | trim }}<|im_end|>\n{% endfor %}" +
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    });
    const delta = createObservationDelta(trimming);
    const text = (content: string) =>
      delta([{ role: "tool", content }], { lastAssistantEndedWithEos: true }).text;
    expect(text("  a  ")).toBe("\n<|im_start|>tool\na<|im_end|>\n<|im_start|>assistant\n");
    expect(text("\nb\n")).toBe("\n<|im_start|>tool\nb<|im_end|>\n<|im_start|>assistant\n");
  });

  it("gives the ids of its whole text for any contents, special tokens and all", () => {
    const delta = createObservationDelta(tok, { tools });
    const content = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom("", "\n", "  x  ", "<|im_end|>", "a<|im_start|>b", "</tool_response>", "日本🙂", "[]"),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom("tool" as const, "user" as const), content }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.boolean(),
        (messages, eos) => {
          const d = delta(messages, { lastAssistantEndedWithEos: eos });
          expect(d.ids).toEqual(tok.encode(d.text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("encodes a turn's tool results, the template's pieces once; a long result is never kept", () => {
    const encoded: string[] = [];
    const counted: ModelTokenizer = {
      ...tok,
      encode: (text, options) => {
        encoded.push(text);
        return tok.encode(text, options);
      },
    };
    const delta = createObservationDelta(counted, { tools });
    const long = `a result of ${OBSERVATION_PIECE_CHARS} characters or more: ${"x".repeat(OBSERVATION_PIECE_CHARS)}`;
    const results = ["result 0", "[]", long, "result 1", "[]", long, "result 2"];
    for (const [turn, content] of results.entries()) {
      const d = delta([{ role: "tool", content }], { lastAssistantEndedWithEos: turn % 2 === 0 });
      expect(d.ids).toEqual(tok.encode(d.text));
    }
    const piece = (content: string) => `${OPEN}${content}\n</tool_response>`;
    expect(encoded).toEqual([
      "\n",
      piece("result 0"),
      "<|im_end|>\n",
      "<|im_start|>assistant\n",
      piece("[]"), // short: kept, not encoded again at turn 4
      piece(long),
      piece("result 1"),
      piece(long), // long: encoded each time it comes
      piece("result 2"),
    ]);
  });

  it("runs Qwen3's template once per message shape, not once per turn", () => {
    let renders = 0;
    const counted: ModelTokenizer = {
      ...tok,
      renderChat: (messages, options) => {
        renders++;
        return tok.renderChat(messages, options);
      },
    };
    const delta = createObservationDelta(counted, { tools });
    const afterSetup = renders;
    for (let turn = 0; turn < 20; turn++) {
      delta([{ role: "tool", content: `result ${turn}` }], { lastAssistantEndedWithEos: true });
    }
    const oneShape = renders - afterSetup;
    for (let turn = 0; turn < 20; turn++) {
      delta([{ role: "tool", content: `result ${turn}` }], { lastAssistantEndedWithEos: true });
      delta(
        [
          { role: "tool", content: "a" },
          { role: "tool", content: "b" },
        ],
        { lastAssistantEndedWithEos: false },
      );
    }
    expect(oneShape).toBeLessThan(20);
    // the second shape (two results) costs what the first did; the first costs nothing more
    expect(renders - afterSetup).toBe(2 * oneShape);
  });
});
