import { describe, expect, it } from "vitest";
import { llama3Format, parseLlama3 } from "./llama3.ts";

describe("llama3 turns", () => {
  it("parses a JSON call with parameters", () => {
    const turn = '{"name": "search__search", "parameters": {"query": "Ed Wood nationality", "topk": 3}}';
    expect(parseLlama3(turn)).toEqual({
      calls: [
        { name: "search__search", arguments: { query: "Ed Wood nationality", topk: 3 }, raw: turn, index: 0 },
      ],
      malformed: [],
    });
  });

  it("accepts the <|python_tag|> prefix, trailing <|eom_id|>, 'arguments' and ';'-separated calls", () => {
    const turn =
      '<|python_tag|>{"name": "calc__eval", "parameters": {"expr": "6*7"}}; ' +
      '{"name": "sql__query", "arguments": {"sql": "SELECT \';\' AS x"}}<|eom_id|>';
    const parsed = parseLlama3(turn);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.calls.map((c) => [c.name, c.arguments, c.index])).toEqual([
      ["calc__eval", { expr: "6*7" }, 0],
      ["sql__query", { sql: "SELECT ';' AS x" }, 1],
    ]);
  });

  it("decodes double-encoded parameters", () => {
    const parsed = parseLlama3(`{"name": "a__b", "parameters": ${JSON.stringify('{"k": [1, 2]}')}}`);
    expect(parsed.calls[0]?.arguments).toEqual({ k: [1, 2] });
  });

  it("takes any other turn as the final answer", () => {
    expect(parseLlama3("The director is Scott Derrickson.<|eot_id|>")).toEqual({
      calls: [],
      answer: "The director is Scott Derrickson.",
      malformed: [],
    });
    expect(parseLlama3("  \n")).toEqual({ calls: [], malformed: [] });
  });

  it("reports malformed JSON, missing names and missing parameters", () => {
    expect(parseLlama3('{"name": "a__b", "parameters": {"x": 1}').malformed).toMatchObject([
      { code: "INVALID_JSON", index: 0 },
    ]);
    expect(parseLlama3('{"parameters": {}}').malformed).toMatchObject([{ code: "MISSING_NAME" }]);
    const missing = parseLlama3('{"name": "a__b"}').malformed[0];
    expect(missing?.code).toBe("MISSING_ARGUMENTS");
    expect(missing?.message).toContain('"parameters" or "arguments"');
  });

  it("reports Llama's built-in python calls as not JSON", () => {
    const parsed = parseLlama3('<|python_tag|>brave_search.call(query="Ed Wood")');
    expect(parsed.calls).toEqual([]);
    expect(parsed.malformed).toMatchObject([
      { code: "INVALID_JSON", message: expect.stringContaining('"parameters"') },
    ]);
  });

  it("keeps the good call and reports text after it", () => {
    const parsed = parseLlama3('{"name": "a__b", "parameters": {}} and then I will answer');
    expect(parsed.calls).toHaveLength(1);
    expect(parsed.malformed).toMatchObject([
      { code: "INVALID_JSON", index: 1, raw: "and then I will answer" },
    ]);
  });

  it("renders observations as tool messages", () => {
    expect(
      llama3Format.renderObservation([
        { kind: "result", name: "calc__eval", text: "42", isError: false },
        { kind: "failure", name: "sql__query", code: "UNKNOWN_TOOL", message: "no tool sql__query" },
      ]),
    ).toEqual({
      kind: "messages",
      messages: [
        { role: "tool", name: "calc__eval", content: "42" },
        { role: "tool", name: "sql__query", content: "Error [UNKNOWN_TOOL]: no tool sql__query" },
      ],
    });
  });
});
