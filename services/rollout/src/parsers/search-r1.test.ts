import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstAction, SEARCH_R1_ACTION, SEARCH_R1_INVALID_ACTION, searchR1Format } from "./search-r1.ts";

const format = searchR1Format();

describe("search-r1 turns", () => {
  it("turns <search> into a call to the search tool with the configured topk", () => {
    const turn =
      "<think> I need to find who directed Doctor Strange. </think>\n<search> Doctor Strange 2016 director </search>";
    expect(format.parse(turn)).toEqual({
      calls: [
        {
          name: "search__search",
          arguments: { query: "Doctor Strange 2016 director", topk: 3 },
          raw: "<search> Doctor Strange 2016 director </search>",
          index: 0,
        },
      ],
      malformed: [],
      end: turn.length,
    });
    const custom = searchR1Format({ searchTool: "wiki__retrieve", topk: 5 }).parse(turn);
    expect(custom.calls[0]).toMatchObject({ name: "wiki__retrieve", arguments: { topk: 5 } });
  });

  it("cuts the turn at the first </search> and ignores what follows", () => {
    const turn = "<search> a </search>\n\n<information>made up</information><answer> b </answer>";
    const parsed = format.parse(turn);
    expect(parsed.end).toBe("<search> a </search>".length);
    expect(parsed.answer).toBeUndefined();
    expect(parsed.calls[0]?.arguments).toEqual({ query: "a", topk: 3 });
  });

  it("takes the first action of the cut turn: an answer before a search wins", () => {
    const parsed = format.parse("<answer> Scott Derrickson </answer> <search> more </search>");
    expect(parsed).toMatchObject({ calls: [], answer: "Scott Derrickson", malformed: [] });
  });

  it("cuts at </answer> when there is no </search>", () => {
    const turn = "<think>known</think><answer>Beijing</answer> trailing";
    expect(format.parse(turn)).toEqual({
      calls: [],
      answer: "Beijing",
      malformed: [],
      end: turn.indexOf(" trailing"),
    });
  });

  it("does not skip <think> (as in Search-R1): a search inside it counts", () => {
    expect(format.parse("<think><search> x </search></think>").calls).toHaveLength(1);
  });

  it("reports any other turn as UNKNOWN_ACTION and renders Search-R1's invalid-turn text byte for byte", () => {
    const parsed = format.parse("<think>hmm</think> I think it is Paris. <search> unclosed");
    expect(parsed.calls).toEqual([]);
    expect(parsed.answer).toBeUndefined();
    const [bad] = parsed.malformed;
    expect(bad?.code).toBe("UNKNOWN_ACTION");
    expect(bad?.message).not.toContain("\n");
    expect(format.renderObservation([{ kind: "malformed", malformed: bad! }])).toEqual({
      kind: "text",
      text:
        "\nMy previous action is invalid. If I want to search, I should put the query between <search> and </search>." +
        " If I want to give the final answer, I should put the answer between <answer> and </answer>. Let me try again.\n",
    });
    expect(SEARCH_R1_INVALID_ACTION.startsWith("\nMy previous")).toBe(true);
  });

  it("wraps search results in <information>, stripped as Search-R1 does", () => {
    const docs = "Doc 1(Title: Scott Derrickson) Scott Derrickson is an American director.\n";
    expect(
      format.renderObservation([{ kind: "result", name: "search__search", text: docs, isError: false }]),
    ).toEqual({
      kind: "text",
      text: "\n\n<information>Doc 1(Title: Scott Derrickson) Scott Derrickson is an American director.</information>\n\n",
    });
    const failed = format.renderObservation([
      { kind: "failure", name: "search__search", code: "UNAVAILABLE", message: "search is restarting" },
    ]);
    expect(failed).toEqual({
      kind: "text",
      text: "\n\n<information>Error [UNAVAILABLE]: search is restarting</information>\n\n",
    });
  });

  it("stops the sampler at </search> and </answer>", () => {
    expect(format.stopSequences).toEqual(["</search>", "</answer>"]);
  });

  it("rejects bad options at construction", () => {
    expect(() => searchR1Format({ topk: 0 })).toThrow();
    expect(() => searchR1Format({ searchTool: "" })).toThrow();
  });
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
    { maxLength: 30 },
  )
  .map((parts) => parts.join(""));

describe("search-r1 action finder", () => {
  it("matches Search-R1's regex exactly (in linear time)", () => {
    fc.assert(
      fc.property(searchSoup, (text) => {
        const m = SEARCH_R1_ACTION.exec(text);
        const expected = m === null ? undefined : { raw: m[0], action: m[1], content: m[2] };
        expect(firstAction(text)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
