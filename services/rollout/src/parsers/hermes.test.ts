import { describe, expect, it } from "vitest";
import { hermesFormat, parseHermes } from "./hermes.ts";

const call = (name: string, args: unknown) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("hermes (Qwen3) turns", () => {
  it("returns parallel calls in order, ignoring the thinking", () => {
    const turn =
      "<think>\nThe question needs two facts: Scott Derrickson's and Ed Wood's nationality. " +
      "I'll search both at once.\n</think>\n\n" +
      `${call("search__search", { query: "Scott Derrickson nationality", topk: 3 })}\n` +
      `${call("search__search", { query: "Ed Wood nationality", topk: 3 })}`;
    const parsed = parseHermes(turn);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.answer).toBeUndefined();
    expect(parsed.calls.map((c) => [c.name, c.arguments, c.index])).toEqual([
      ["search__search", { query: "Scott Derrickson nationality", topk: 3 }, 0],
      ["search__search", { query: "Ed Wood nationality", topk: 3 }, 1],
    ]);
    expect(parsed.calls[1]?.raw).toBe(call("search__search", { query: "Ed Wood nationality", topk: 3 }));
  });

  it("does not treat a <tool_call> inside <think> as a call", () => {
    const turn =
      '<think>Maybe <tool_call>{"name": "calc__eval", "arguments": {"expr": "2+2"}}</tool_call>? ' +
      "No, I know this.</think>\n<answer>4</answer>";
    expect(parseHermes(turn)).toEqual({ calls: [], answer: "4", malformed: [] });
  });

  it("treats text before a </think> whose <think> was in the prompt as thinking", () => {
    const turn = `I could call ${call("sql__query", { sql: "SELECT 1" })} but first...\n</think>\n\n${call("sql__query", { sql: "SELECT 2" })}`;
    const parsed = parseHermes(turn);
    expect(parsed.calls.map((c) => c.arguments)).toEqual([{ sql: "SELECT 2" }]);
  });

  it("hides everything after a <think> that never closes", () => {
    expect(parseHermes(`<think>let me try ${call("a__b", {})}`)).toEqual({ calls: [], malformed: [] });
  });

  it("keeps both an answer and the calls of the same turn, the last answer winning", () => {
    const turn = `<answer>Paris</answer>\n${call("search__search", { query: "capital of France" })}\n<answer> Paris, France </answer>`;
    const parsed = parseHermes(turn);
    expect(parsed.answer).toBe("Paris, France");
    expect(parsed.calls).toHaveLength(1);
  });

  it("decodes double-encoded arguments", () => {
    const turn = `<tool_call>\n{"name": "calc__eval", "arguments": ${JSON.stringify(JSON.stringify({ expr: "1/3" }))}}\n</tool_call>`;
    expect(parseHermes(turn).calls[0]?.arguments).toEqual({ expr: "1/3" });
  });

  it("accepts JSON5 (single quotes, trailing commas, unquoted keys)", () => {
    const turn =
      "<tool_call>{'name': 'code__run', arguments: {language: 'python', code: 'print(1)',},}</tool_call>";
    expect(parseHermes(turn).calls[0]).toMatchObject({
      name: "code__run",
      arguments: { language: "python", code: "print(1)" },
    });
  });

  it("does not end a call at a </tool_call> or braces inside a JSON string", () => {
    const args = { code: 'print("</tool_call>"); d = {"a": [1, {"b": "}"}]}', note: "<answer>no</answer>" };
    const parsed = parseHermes(`${call("code__run", args)}\n${call("calc__eval", { expr: "{2}" })}`);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.answer).toBeUndefined();
    expect(parsed.calls.map((c) => c.arguments)).toEqual([args, { expr: "{2}" }]);
  });

  it("reports malformed JSON with the call's number and a position, and still runs the others", () => {
    const turn = `${call("a__b", { x: 1 })}\n<tool_call>\n{"name": "calc__eval", "arguments": {"expr": }}\n</tool_call>`;
    const parsed = parseHermes(turn);
    expect(parsed.calls).toHaveLength(1);
    expect(parsed.malformed).toHaveLength(1);
    const [bad] = parsed.malformed;
    expect(bad?.code).toBe("INVALID_JSON");
    expect(bad?.index).toBe(1);
    expect(bad?.message).toMatch(/^tool call 2 is not valid JSON: .*1:4\d$/);
    expect(bad?.raw).toContain('"expr": }');
  });

  it.each([
    ['{"arguments": {"q": "x"}}', "MISSING_NAME", /"name"/],
    ['{"name": "", "arguments": {}}', "MISSING_NAME", /non-empty string/],
    ['{"name": 7, "arguments": {}}', "MISSING_NAME", /got a number/],
    ['{"name": "search__search"}', "MISSING_ARGUMENTS", /search__search.*"arguments"/],
    ['{"name": "search__search", "arguments": ["x"]}', "ARGUMENTS_NOT_OBJECT", /got an array/],
    ['{"name": "search__search", "arguments": "x"}', "ARGUMENTS_NOT_OBJECT", /got a string/],
    ['{"name": "search__search", "arguments": "[1]"}', "ARGUMENTS_NOT_OBJECT", /got a string/],
    ['[{"name": "a", "arguments": {}}]', "NOT_AN_OBJECT", /got an array/],
    ["   ", "INVALID_JSON", /is empty/],
  ])("rejects %s as %s", (body, code, message) => {
    const parsed = parseHermes(`<tool_call>\n${body}\n</tool_call>`);
    expect(parsed.calls).toEqual([]);
    expect(parsed.malformed).toMatchObject([{ code, index: 0 }]);
    expect(parsed.malformed[0]?.message).toMatch(message);
  });

  it("reports an unclosed <tool_call> and parses a following one on its own", () => {
    const turn = `<tool_call>\n{"name": "a__b", "arguments": {"x": 1}\n${call("c__d", {})}`;
    const parsed = parseHermes(turn);
    expect(parsed.malformed).toMatchObject([{ code: "UNCLOSED_TAG", index: 0 }]);
    expect(parsed.calls).toMatchObject([{ name: "c__d", index: 1 }]);
  });

  it("reports a turn cut off inside a call", () => {
    const parsed = parseHermes('<tool_call>\n{"name": "a__b", "arguments": {"x": "long');
    expect(parsed.malformed).toMatchObject([
      { code: "UNCLOSED_TAG", message: "tool call 1 has no closing </tool_call>" },
    ]);
  });

  it("reports an unclosed <answer> but keeps the calls around it", () => {
    const parsed = parseHermes(`The final <answer> comes later.\n${call("a__b", {})}`);
    expect(parsed.answer).toBeUndefined();
    expect(parsed.calls).toHaveLength(1);
    expect(parsed.malformed).toMatchObject([{ code: "UNCLOSED_TAG" }]);
  });

  it("parses a turn with neither calls nor answer as nothing", () => {
    expect(parseHermes("I am not sure what to do.")).toEqual({ calls: [], malformed: [] });
  });

  it("renders results as tool messages, failures and malformed calls with their codes", () => {
    const malformed = parseHermes("<tool_call>{</tool_call>").malformed[0]!;
    const obs = hermesFormat.renderObservation([
      { kind: "result", name: "search__search", text: "Doc 1(Title: Paris) Paris is ...", isError: false },
      { kind: "result", name: "calc__eval", text: "division by zero", isError: true },
      { kind: "failure", name: "sql__query", code: "TIMEOUT", message: "sql__query timed out after 5000 ms" },
      { kind: "malformed", malformed },
    ]);
    expect(obs).toEqual({
      kind: "messages",
      messages: [
        { role: "tool", name: "search__search", content: "Doc 1(Title: Paris) Paris is ..." },
        { role: "tool", name: "calc__eval", content: "division by zero" },
        { role: "tool", name: "sql__query", content: "Error [TIMEOUT]: sql__query timed out after 5000 ms" },
        { role: "tool", name: "", content: `Error [INVALID_JSON]: ${malformed.message}` },
      ],
    });
    expect(hermesFormat.stopSequences).toEqual([]);
  });
});
